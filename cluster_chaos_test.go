package lockkv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/replication"
)

// TestClusterDeterminism drives a 3-node cluster with a random mix of
// commands that exercise every source of nondeterminism the apply path
// must fix (time: leases that run out, TTLs, TIME in scripts; randomness:
// SPOP, SRANDMEMBER, HRANDFIELD, RANDOMKEY and SCAN/HSCAN/SSCAN in scripts; blocking pops served by later pushes;
// transactions; lock scripts) while the leader is stopped and restarted
// now and then, and at the end requires every node to hold the same
// keyspace (Engine.Digest) at the same applied index.
func TestClusterDeterminism(t *testing.T) {
	dur := 6 * time.Second
	if d, err := time.ParseDuration(os.Getenv("LOCKKV_CHAOS")); err == nil {
		dur = d
	}
	dir := t.TempDir()
	n := 0
	tc := startClusterWith(t, 3, func(c *replication.Config) {
		n++
		c.DataDir = fmt.Sprintf("%s/n%d", dir, n)
		c.SnapshotThreshold = 200 // snapshots and restores happen too
		c.TrailingLogs = 50
		c.SnapshotInterval = 300 * time.Millisecond
	})
	addrs := make([]string, len(tc.peers))
	for i, p := range tc.peers {
		addrs[i] = p.ClientAddr
	}
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRedirects: 16,
				ClusterStateReloadInterval: 200 * time.Millisecond, ReadTimeout: 3 * time.Second})
			defer c.Close()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			ctx := context.Background()
			for time.Now().Before(stop) {
				chaosStep(ctx, c, r, w)
			}
		}(w)
	}
	// The nemesis: stop the leader, wait, start it again.
	for time.Now().Add(2 * time.Second).Before(stop) {
		time.Sleep(1500 * time.Millisecond)
		l := tc.leader()
		tc.stop(l)
		time.Sleep(300 * time.Millisecond)
		tc.start(l)
	}
	wg.Wait()
	// Let leases run out and everything replicate, then compare.
	time.Sleep(1200 * time.Millisecond)
	tc.setAcknowledged("final")
	var want string
	testutil.Eventually(t, 20*time.Second, func() error {
		digests := make([]string, len(tc.srvs))
		applied := make([]uint64, len(tc.srvs))
		for i, s := range tc.srvs {
			s.Do(func(e *engine.Engine) {
				digests[i] = e.Digest()
				applied[i] = e.Cluster().Status().AppliedIndex
			})
		}
		if applied[0] == applied[1] && applied[1] == applied[2] && digests[0] == digests[1] && digests[1] == digests[2] {
			want = digests[0]
			return nil
		}
		return fmt.Errorf("nodes differ: applied %v, digests %v", applied, digests)
	})
	snaps := 0
	for _, s := range tc.srvs {
		s.Do(func(e *engine.Engine) {
			if e.Cluster().Status().LastSnapshotIndex > 0 {
				snaps++
			}
		})
	}
	if snaps == 0 {
		t.Fatal("no node took a snapshot: the test did not cover snapshots")
	}
	t.Logf("digest %s… equal on 3 nodes; %d took snapshots", want[:12], snaps)
}

// chaosStep runs one random operation; errors (failovers) are expected.
func chaosStep(ctx context.Context, c *redis.ClusterClient, r *rand.Rand, w int) {
	k := fmt.Sprintf("k%d", r.IntN(20))
	owner := fmt.Sprintf("owner-%d:%d", w, r.IntN(2))
	switch r.IntN(14) {
	case 0:
		c.Set(ctx, k, r.IntN(1000), time.Duration(r.IntN(800))*time.Millisecond)
	case 1:
		c.Incr(ctx, "ctr"+k)
	case 2:
		c.Eval(ctx, lockscripts.Acquire, []string{"lock" + k}, 300+r.IntN(700), owner)
	case 3:
		c.Eval(ctx, lockscripts.Release, []string{"lock" + k, "redisson_lock__channel:{lock" + k + "}"}, 0, 30000, owner)
	case 4:
		c.SAdd(ctx, "set", r.IntN(300), fmt.Sprintf("m%d", r.IntN(300)))
	case 5:
		c.SPop(ctx, "set")
	case 6:
		c.Eval(ctx, "local m = redis.call('srandmember', KEYS[1]); if m then redis.call('srem', KEYS[1], m); redis.call('rpush', KEYS[2], m) end; return m", []string{"set", "popped"})
	case 7:
		c.Eval(ctx, "local t = redis.call('time'); redis.call('hset', KEYS[1], 'at', t[1] .. '.' .. t[2]); return redis.call('pexpire', KEYS[1], ARGV[1])", []string{"timed" + k}, 200+r.IntN(500))
	case 8:
		c.LPush(ctx, "queue", r.IntN(100))
	case 9:
		c.BLPop(ctx, time.Second, "queue")
	case 10:
		c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HIncrBy(ctx, "h", k, 1)
			p.PExpire(ctx, "h", 2*time.Second)
			return nil
		})
	case 11:
		c.ZAdd(ctx, "z", redis.Z{Score: float64(r.IntN(50)), Member: k})
		c.ZPopMin(ctx, "z")
	case 12:
		// Past hash-max-listpack-entries: a table whose layout differs
		// between nodes that restored a snapshot and nodes that did not.
		c.HSet(ctx, "hrand", fmt.Sprintf("f%d", r.IntN(700)), r.IntN(100))
	case 13:
		c.Eval(ctx, `local f = redis.call('hrandfield', KEYS[1])
if f then redis.call('hdel', KEYS[1], f); redis.call('rpush', KEYS[2], f) end
for _, g in ipairs(redis.call('hrandfield', KEYS[1], -3)) do redis.call('rpush', KEYS[2], g) end
for _, g in ipairs(redis.call('hrandfield', KEYS[1], 2, 'withvalues')) do redis.call('rpush', KEYS[2], g) end
local k = redis.call('randomkey')
if k then redis.call('rpush', KEYS[2], k) end
local r = redis.call('scan', ARGV[1], 'count', 5)
for _, g in ipairs(r[2]) do redis.call('rpush', KEYS[2], g) end
local h = redis.call('hscan', KEYS[1], ARGV[1], 'count', 3)
for _, g in ipairs(h[2]) do redis.call('rpush', KEYS[2], g) end
local s = redis.call('sscan', KEYS[3], ARGV[1], 'count', 3)
for _, g in ipairs(s[2]) do redis.call('rpush', KEYS[2], g) end
redis.call('rpush', KEYS[2], r[1], h[1], s[1])
return f`, []string{"hrand", "popped", "set"}, []string{"0", "1", strconv.FormatUint(r.Uint64(), 10)}[r.IntN(3)])
	}
}
