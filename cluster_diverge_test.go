package lockkv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/replication"
	"github.com/lockkv/lockkv/store"
)

// TestClusterDivergeStress is TestClusterDeterminism with a harsher
// nemesis: besides stopping and restarting the leader it transfers
// leadership, stops followers, and stalls the leader's command goroutine
// while its clients keep sending (the watchdog then hands leadership away
// with a backlog of proposals in flight, as under heavy load), with more
// clients, short leases and TTLs that expire while leadership moves,
// blocking pops, WATCHed transactions and fair-lock scripts. At the end
// every node must hold the same keyspace at the same applied index, and
// again after each node was restarted from its snapshot and log; and
// every INCR acknowledged to a client (sent once, never retried) must be
// in its counter.
//
// LOCKKV_DIVERGE sets the load's duration (default 12s).
func TestClusterDivergeStress(t *testing.T) { divergeStress(t, nil) }

// TestClusterDivergeStressPartitions is TestClusterDivergeStress over a
// Raft network that can cut a node off (cutNet): the nemesis also
// isolates the leader (it goes on taking proposals it cannot commit
// until its lease runs out, while the others elect a leader and commit
// theirs) or a follower, for up to a second and a half.
func TestClusterDivergeStressPartitions(t *testing.T) { divergeStress(t, &cutNet{cut: map[int]bool{}}) }

func divergeStress(t *testing.T, cn *cutNet) {
	dur := 12 * time.Second
	if d, err := time.ParseDuration(os.Getenv("LOCKKV_DIVERGE")); err == nil {
		dur = d
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	dir := t.TempDir()
	n := 0
	tc := startClusterWith(t, 3, func(c *replication.Config) {
		n++
		c.DataDir = fmt.Sprintf("%s/n%d", dir, n)
		c.SnapshotThreshold = 100
		c.TrailingLogs = 30
		c.SnapshotInterval = 200 * time.Millisecond
		if cn != nil {
			c.Transport = cn.transport(t, n-1, c.RaftAddr)
		}
	})
	if cn != nil {
		cn.mu.Lock()
		for _, p := range tc.peers {
			cn.addrs = append(cn.addrs, raft.ServerAddress(p.RaftAddr))
		}
		cn.mu.Unlock()
	}
	// start starts node i again (a new transport: the old one closed).
	start := func(i int) {
		if cn != nil {
			rc(&tc.cfgs[i]).Transport = cn.transport(t, i, tc.peers[i].RaftAddr)
		}
		tc.start(i)
	}
	addrs := make([]string, len(tc.peers))
	for i, p := range tc.peers {
		addrs[i] = p.ClientAddr
	}
	// LFU: every key access applied makes a probabilistic counter
	// increment (with lfu-log-factor 0, until the counter saturates).
	// A restarted node is set again.
	lfu := func(i int) {
		tc.srvs[i].Do(func(e *engine.Engine) {
			for _, kv := range [][2]string{{"maxmemory-policy", "allkeys-lfu"}, {"lfu-log-factor", "0"}} {
				if ok, msg := e.Config.Set(kv[0], kv[1]); !ok {
					t.Errorf("CONFIG SET %s: %s", kv[0], msg)
				}
			}
		})
	}
	for i := range tc.srvs {
		lfu(i)
	}
	var ops, errs atomic.Int64
	const workers = 12
	// Each worker also counts its INCRs of a key of its own: those
	// acknowledged must all be in the final value (an acknowledged write
	// survives failovers), which holds at most the unknown outcomes more.
	var acked, unknown [workers]int64
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRedirects: 16,
				ClusterStateReloadInterval: 200 * time.Millisecond, ReadTimeout: 3 * time.Second})
			defer c.Close()
			// Plain clients without retries, redirected by hand: a
			// ClusterClient sends a command again after EOF or a timeout
			// (MaxRedirects, whatever MaxRetries says), and a write sent
			// twice could apply twice and count once.
			once := map[string]*redis.Client{}
			defer func() {
				for _, oc := range once {
					oc.Close()
				}
			}()
			at := addrs[w%len(addrs)]
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			ctx := context.Background()
			for time.Now().Before(stop) {
				var err error
				switch r.IntN(10) {
				case 0:
					oc := once[at]
					if oc == nil {
						oc = redis.NewClient(&redis.Options{Addr: at, MaxRetries: -1, ReadTimeout: 3 * time.Second})
						once[at] = oc
					}
					err = oc.Incr(ctx, fmt.Sprintf("acked%d", w)).Err()
					switch {
					case err == nil:
						acked[w]++
					case strings.HasPrefix(err.Error(), "MOVED "):
						at = err.Error()[strings.LastIndexByte(err.Error(), ' ')+1:]
					case strings.HasPrefix(err.Error(), "CLUSTERDOWN"), strings.Contains(err.Error(), "connection refused"):
						at = addrs[r.IntN(len(addrs))] // never ran
					default:
						unknown[w]++
					}
				case 1, 2, 3, 4:
					chaosStep(ctx, c, r, w)
				default:
					err = divergeStep(ctx, c, r, w)
				}
				ops.Add(1)
				if err != nil && err != redis.Nil {
					errs.Add(1)
				}
			}
		}(w)
	}
	r := rand.New(rand.NewPCG(seed, 99))
	var actions []string
	for time.Now().Add(1500 * time.Millisecond).Before(stop) {
		time.Sleep(time.Duration(600+r.IntN(900)) * time.Millisecond)
		l := tc.leader()
		kinds := 4
		if cn != nil {
			kinds = 6
		}
		switch a := r.IntN(kinds); a {
		case 0:
			actions = append(actions, fmt.Sprintf("restart leader n%d", l+1))
			tc.stop(l)
			time.Sleep(time.Duration(100+r.IntN(400)) * time.Millisecond)
			start(l)
			lfu(l)
		case 1:
			actions = append(actions, fmt.Sprintf("transfer from n%d", l+1))
			tc.srvs[l].Node().Raft().LeadershipTransfer()
		case 2:
			// A command goroutine stuck past the election timeout while
			// clients keep sending: the watchdog hands leadership away.
			actions = append(actions, fmt.Sprintf("stall leader n%d", l+1))
			tc.srvs[l].Do(func(*engine.Engine) { time.Sleep(time.Duration(400+r.IntN(800)) * time.Millisecond) })
		case 3:
			f := (l + 1 + r.IntN(2)) % 3
			actions = append(actions, fmt.Sprintf("restart follower n%d", f+1))
			tc.stop(f)
			time.Sleep(time.Duration(100+r.IntN(600)) * time.Millisecond)
			start(f)
			lfu(f)
		case 4, 5:
			i := l
			what := "leader"
			if a == 5 {
				i, what = (l+1+r.IntN(2))%3, "follower"
			}
			d := time.Duration(300+r.IntN(1200)) * time.Millisecond
			actions = append(actions, fmt.Sprintf("isolate %s n%d for %v", what, i+1, d))
			cn.set(i, true)
			time.Sleep(d)
			cn.set(i, false)
		}
	}
	wg.Wait()
	t.Logf("%d ops (%d errors), nemesis: %s", ops.Load(), errs.Load(), strings.Join(actions, ", "))
	// Let leases run out and their expiry replicate, then compare.
	time.Sleep(1200 * time.Millisecond)
	want := requireSameState(t, tc, "after the load")
	var total, lost int64
	for w := 0; w < workers; w++ {
		got, err := tc.client(tc.leader()).Get(context.Background(), fmt.Sprintf("acked%d", w)).Int64()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		total += acked[w]
		if got < acked[w] || got > acked[w]+unknown[w] {
			t.Errorf("worker %d: counter %d after %d acknowledged INCRs and %d of unknown outcome", w, got, acked[w], unknown[w])
		}
		lost += unknown[w]
	}
	t.Logf("%d acknowledged INCRs all kept (%d of unknown outcome)", total, lost)
	// Every node again after a restart: its snapshot and log replayed.
	for i := range tc.srvs {
		tc.stop(i)
		start(i)
		tc.setAcknowledged(fmt.Sprintf("final%d", i))
		requireSameState(t, tc, fmt.Sprintf("after restarting n%d", i+1))
	}
	t.Logf("digest %s… equal on 3 nodes, before and after restarts", want[:12])
}

// setAcknowledged writes key on the leader until a write is acknowledged:
// an entry of the current term, which every node applies. Leadership may
// still move after a nemesis (a restarted node's election).
func (tc *testCluster) setAcknowledged(key string) {
	tc.t.Helper()
	if err := tc.onLeader(func(c *redis.Client) error { return c.Set(context.Background(), key, "1", 0).Err() }); err != nil {
		tc.t.Fatalf("SET %s: %v", key, err)
	}
}

// onLeader runs f with a client of the node that leads now, again while
// it answers that leadership moved (MOVED, CLUSTERDOWN, or lost before
// the write committed), and returns f's last error.
func (tc *testCluster) onLeader(f func(c *redis.Client) error) error {
	tc.t.Helper()
	var err error
	for try := 0; try < 50; try++ {
		err = f(tc.client(tc.leader()))
		if err == nil || !(strings.HasPrefix(err.Error(), "MOVED") || strings.HasPrefix(err.Error(), "CLUSTERDOWN") ||
			strings.Contains(err.Error(), "leadership lost")) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// requireSameState waits for every node to apply the same index and
// compares their digests there; on a difference it lists the keys that
// differ.
func requireSameState(t *testing.T, tc *testCluster, when string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		digests := make([]string, len(tc.srvs))
		applied := make([]uint64, len(tc.srvs))
		keys := make([]map[string]string, len(tc.srvs))
		for i, s := range tc.srvs {
			s.Do(func(e *engine.Engine) {
				digests[i] = e.Digest()
				applied[i] = e.AppliedIndex()
				keys[i] = keyDigests(e)
			})
		}
		sameIndex := applied[0] == applied[1] && applied[1] == applied[2]
		if sameIndex && digests[0] == digests[1] && digests[1] == digests[2] {
			return digests[0]
		}
		if time.Now().After(deadline) {
			if !sameIndex {
				t.Fatalf("%s: nodes never reached the same index: applied %v", when, applied)
			}
			t.Fatalf("%s: nodes differ at index %d: digests %v\n%s", when, applied[0], digests, diffKeys(keys))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keyDigests maps "db/key" to a hash of its canonical encoding, and
// "scripts" to that of the rest of the replicated state.
func keyDigests(e *engine.Engine) map[string]string {
	out := map[string]string{}
	for i, db := range e.DBs {
		db.Range(func(key string, en *store.Entry) bool {
			h := sha256.New()
			w := store.NewEncoder(func(b []byte) { h.Write(b) })
			w.Canonical = true
			w.Entry(key, en)
			w.Chunks()
			out[fmt.Sprintf("%d/%s", i, key)] = fmt.Sprintf("%s exp=%d", hex.EncodeToString(h.Sum(nil))[:12], en.Expire)
			return true
		})
	}
	return out
}

func diffKeys(nodes []map[string]string) string {
	all := map[string]bool{}
	for _, m := range nodes {
		for k := range m {
			all[k] = true
		}
	}
	var lines []string
	for k := range all {
		vs := make([]string, len(nodes))
		same := true
		for i, m := range nodes {
			v, ok := m[k]
			if !ok {
				v = "absent"
			}
			vs[i] = v
			if i > 0 && vs[i] != vs[0] {
				same = false
			}
		}
		if !same {
			lines = append(lines, fmt.Sprintf("  %s: %s", k, strings.Join(vs, " | ")))
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "  every key is the same (the scripts or interpreter state differ)"
	}
	return strings.Join(lines, "\n")
}

// divergeStep runs one operation of TestClusterDivergeStress's mix.
func divergeStep(ctx context.Context, c *redis.ClusterClient, r *rand.Rand, w int) error {
	k := fmt.Sprintf("d%d", r.IntN(16))
	owner := fmt.Sprintf("owner-%d:%d", w, r.IntN(3))
	now := time.Now().UnixMilli()
	switch r.IntN(19) {
	case 0:
		return c.Set(ctx, "short"+k, r.IntN(100), time.Duration(1+r.IntN(40))*time.Millisecond).Err()
	case 1:
		return c.Incr(ctx, "short"+k).Err()
	case 2:
		return c.Eval(ctx, lockscripts.Acquire, []string{"dlock" + k}, 20+r.IntN(200), owner).Err()
	case 3:
		return c.Eval(ctx, lockscripts.Renew, []string{"dlock" + k}, 20+r.IntN(200), owner).Err()
	case 4:
		return c.Eval(ctx, lockscripts.FairAcquire, []string{"fair" + k, "fairq" + k, "fairt" + k}, 50+r.IntN(300), owner, 100, now).Err()
	case 5:
		return c.Eval(ctx, lockscripts.FairRelease, []string{"fair" + k, "fairq" + k, "fairt" + k, "ch"}, "msg", 100, owner, now).Err()
	case 6:
		return c.PExpire(ctx, "short"+k, time.Duration(1+r.IntN(60))*time.Millisecond).Err()
	case 7:
		return c.GetEx(ctx, "short"+k, time.Duration(1+r.IntN(60))*time.Millisecond).Err()
	case 8:
		return c.Do(ctx, "blmove", "{q}src", "{q}dst", "left", "right", fmt.Sprintf("0.%03d", 10+r.IntN(300))).Err()
	case 9:
		return c.RPush(ctx, "{q}src", r.IntN(1000)).Err()
	case 10:
		return c.Watch(ctx, func(tx *redis.Tx) error {
			v, err := tx.Get(ctx, "wctr").Int()
			if err != nil && err != redis.Nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "wctr", v+1, 0)
				return nil
			})
			return err
		}, "wctr")
	case 11:
		return c.Eval(ctx, "redis.call('hset', KEYS[1], 'r', math.random(1000000)); return redis.call('pexpire', KEYS[1], ARGV[1])", []string{"rnd" + k}, 1+r.IntN(100)).Err()
	case 12:
		return c.EvalRO(ctx, "return {math.random(1000), redis.call('get', KEYS[1])}", []string{"short" + k}).Err()
	case 13:
		return c.Set(ctx, "keep"+k, r.IntN(100), redis.KeepTTL).Err()
	case 14:
		return c.Eval(ctx, lockscripts.SpinAcquire, []string{"spin" + k}, owner, 1+r.IntN(50)).Err()
	case 15:
		return c.Do(ctx, "blpop", "{q}dst", fmt.Sprintf("0.%03d", 10+r.IntN(200))).Err()
	case 16:
		return c.ZAdd(ctx, "zs"+k, redis.Z{Score: float64(r.IntN(10)), Member: owner}).Err()
	case 17:
		// A read the leader runs by itself: it must not change the
		// sorted set's encoding there only.
		return c.SortRO(ctx, "zs"+k, &redis.Sort{}).Err()
	case 18:
		// Reads raise the leader's LFU counters only (the policy is
		// LFU): whether an applied access draws a number then differs
		// between nodes.
		return c.Get(ctx, "ctrk"+strconv.Itoa(r.IntN(20))).Err()
	}
	return nil
}

// cutNet is an in-process Raft network whose nodes can be cut off: every
// Raft RPC is a call its sender makes (votes, appends, heartbeats,
// snapshots, transfers), so failing each call from or to a cut node
// isolates it in both directions.
type cutNet struct {
	mu    sync.Mutex
	addrs []raft.ServerAddress
	cut   map[int]bool
}

var errCut = errors.New("cut off by the test")

func (cn *cutNet) set(i int, cut bool) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	cn.cut[i] = cut
}

func (cn *cutNet) blocked(from int, to raft.ServerAddress) bool {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.cut[from] {
		return true
	}
	for i, a := range cn.addrs {
		if a == to {
			return cn.cut[i]
		}
	}
	return false
}

// transport is node i's Raft transport on addr: plain TCP (no peer
// handshake), through the cut.
func (cn *cutNet) transport(t *testing.T, i int, addr string) raft.Transport {
	adv, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := raft.NewTCPTransport(addr, adv, 3, 2*time.Second, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return &cutTransport{NetworkTransport: tr, net: cn, self: i}
}

type cutTransport struct {
	*raft.NetworkTransport
	net  *cutNet
	self int
}

func (c *cutTransport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported // each append is a call the cut can fail
}

func (c *cutTransport) AppendEntries(id raft.ServerID, to raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	if c.net.blocked(c.self, to) {
		return errCut
	}
	return c.NetworkTransport.AppendEntries(id, to, args, resp)
}

func (c *cutTransport) RequestVote(id raft.ServerID, to raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	if c.net.blocked(c.self, to) {
		return errCut
	}
	return c.NetworkTransport.RequestVote(id, to, args, resp)
}

func (c *cutTransport) RequestPreVote(id raft.ServerID, to raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	if c.net.blocked(c.self, to) {
		return errCut
	}
	return c.NetworkTransport.RequestPreVote(id, to, args, resp)
}

func (c *cutTransport) InstallSnapshot(id raft.ServerID, to raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	if c.net.blocked(c.self, to) {
		return errCut
	}
	return c.NetworkTransport.InstallSnapshot(id, to, args, resp, data)
}

func (c *cutTransport) TimeoutNow(id raft.ServerID, to raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	if c.net.blocked(c.self, to) {
		return errCut
	}
	return c.NetworkTransport.TimeoutNow(id, to, args, resp)
}
