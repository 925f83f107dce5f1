package lockkv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/replication"
)

// spopScript is conformance's SPOP sampler as a script: each round
// refills a set, pops a member and counts it in a hash.
const spopScript = `local out = {}
for i = 1, tonumber(ARGV[1]) do
redis.call("DEL", "s")
redis.call("SADD", "s", "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11", "m12", "m13", "m14")
local r = redis.call("SPOP", "s")
if type(r) ~= 'table' then r = {r} end
for _, x in ipairs(r) do out[#out+1] = x end
for _, x in ipairs(r) do redis.call('hincrby', 'drawn', x, 1) end
end
return out
`

// TestClusterLongScriptsThroughFailover: a client pipelines long scripts
// that draw at random (SPOP) to the leader while leadership moves under
// them (the leader cut off, transfers, a stalled command goroutine), so
// that scripts are proposed, applied and failed ("leadership lost") as
// the leader changes. At the end every node must hold the same keyspace
// at the same index. LOCKKV_DIVERGE sets the load's duration (default
// 6s).
func TestClusterLongScriptsThroughFailover(t *testing.T) {
	dur := 6 * time.Second
	if d, err := time.ParseDuration(os.Getenv("LOCKKV_DIVERGE")); err == nil {
		dur = d
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	cn := &cutNet{cut: map[int]bool{}}
	n := 0
	tc := startClusterWith(t, 3, func(c *replication.Config) {
		c.Transport = cn.transport(t, n, c.RaftAddr)
		n++
	})
	cn.mu.Lock()
	for _, p := range tc.peers {
		cn.addrs = append(cn.addrs, raft.ServerAddress(p.RaftAddr))
	}
	cn.mu.Unlock()
	stop := time.Now().Add(dur)
	var rounds, fails atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		var c *redis.Client
		at := -1
		for time.Now().Before(stop) {
			l := tc.leader()
			if l != at {
				if c != nil {
					c.Close()
				}
				c = redis.NewClient(&redis.Options{Addr: tc.peers[l].ClientAddr, MaxRetries: -1, ReadTimeout: 30 * time.Second})
				at = l
			}
			_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for i := 0; i < 10; i++ {
					p.Eval(ctx, spopScript, nil, 200)
				}
				return nil
			})
			rounds.Add(1)
			if err != nil {
				fails.Add(1)
			}
		}
		if c != nil {
			c.Close()
		}
	}()
	r := rand.New(rand.NewPCG(seed, 1))
	var actions []string
	for time.Now().Add(time.Second).Before(stop) {
		time.Sleep(time.Duration(200+r.IntN(600)) * time.Millisecond)
		l := tc.leader()
		switch r.IntN(3) {
		case 0:
			d := time.Duration(300+r.IntN(1200)) * time.Millisecond
			actions = append(actions, fmt.Sprintf("isolate n%d for %v", l+1, d))
			cn.set(l, true)
			time.Sleep(d)
			cn.set(l, false)
		case 1:
			actions = append(actions, fmt.Sprintf("transfer from n%d", l+1))
			tc.srvs[l].Node().Raft().LeadershipTransfer()
		case 2:
			actions = append(actions, fmt.Sprintf("stall n%d", l+1))
			tc.srvs[l].Do(func(*engine.Engine) { time.Sleep(time.Duration(200+r.IntN(600)) * time.Millisecond) })
		}
	}
	<-done
	t.Logf("%d pipelines (%d failed), nemesis: %s", rounds.Load(), fails.Load(), strings.Join(actions, ", "))
	requireSameState(t, tc, "after the load")
}
