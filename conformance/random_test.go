package conformance

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/chisquare"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
	"github.com/lockkv/lockkv/store"
)

// Random sampling. Redis's own suite checks the distribution of the random
// commands with a chi-square statistic (tests/unit/type/{hash,set,zset}.tcl,
// "HRANDFIELD with <count>", "SRANDMEMBER histogram distribution"); these
// cases do the same, against lockkv and against redis-server, with enough
// draws that a sampler favouring some elements fails by a wide margin. The
// bound is the chi-square quantile at p = 1e-9, so a fair sampler fails it
// about once in a billion runs: no seed to fix on redis-server's side, and
// none needed.
//
// The collections have 15 elements: Redis's dictGetFairRandomKey samples up
// to 15 entries and picks one of them, so up to that size Redis draws from
// a hash table exactly uniformly, and 15 elements in lockkv's 16 buckets
// all but certainly share a bucket somewhere (a sampler that picks a bucket
// and then an entry of its chain shows the bias).

const randomElems = 15

// chiSquare is Pearson's statistic of draws against the uniform
// distribution over universe; a draw outside universe is an error.
func chiSquare(universe, draws []string) (float64, error) {
	idx := make(map[string]int, len(universe))
	for i, u := range universe {
		idx[u] = i
	}
	counts := make([]int, len(universe))
	for _, d := range draws {
		i, ok := idx[d]
		if !ok {
			return 0, fmt.Errorf("drew %q, not an element", d)
		}
		counts[i]++
	}
	return chisquare.Uniform(counts), nil
}

// histogram renders counts for a failure message.
func histogram(universe, draws []string) string {
	counts := map[string]int{}
	for _, d := range draws {
		counts[d]++
	}
	u := append([]string(nil), universe...)
	sort.Strings(u)
	var sb strings.Builder
	for _, e := range u {
		fmt.Fprintf(&sb, " %s:%d", e, counts[e])
	}
	return sb.String()
}

// sampler draws elements at random: setup creates the collection, draw is
// the command that draws (after setup again each round when resetup is
// set: SPOP empties what it draws from).
type sampler struct {
	name     string
	universe []string
	setup    [][]string
	resetup  bool
	draw     []string
	pairs    bool // the reply lists element/value pairs (WITHVALUES)
	distinct bool // a reply's elements must be distinct
	rounds   int
}

func elems(prefix string, n int, width int) []string {
	out := make([]string, n)
	for i := range out {
		s := prefix + strconv.Itoa(i)
		if len(s) < width {
			s += strings.Repeat("x", width-len(s))
		}
		out[i] = s
	}
	return out
}

// drawn returns the elements a draw's reply names.
func (s sampler) drawn(v Value) []string {
	if v.Kind != '*' {
		return []string{v.Str}
	}
	ms := members(v)
	if !s.pairs {
		return ms
	}
	out := make([]string, 0, len(ms)/2)
	for i := 0; i < len(ms); i += 2 {
		out = append(out, ms[i])
	}
	return out
}

// script returns s as one EVAL per tenth of its rounds: a Lua loop runs the
// rounds and returns everything drawn in one flat array. On a lockkv
// cluster the script runs in the replicated apply, where each choice comes
// from the log entry's seed; with log, the script also counts what it drew
// in a hash, so that nodes whose choices differ hold different keyspaces.
func (s sampler) script(log bool) sampler {
	lua := func(cmd []string) string {
		q := make([]string, len(cmd))
		for i, a := range cmd {
			q[i] = strconv.Quote(a)
		}
		return "redis.call(" + strings.Join(q, ", ") + ")"
	}
	var b strings.Builder
	b.WriteString("local out = {}\nfor i = 1, tonumber(ARGV[1]) do\n")
	if s.resetup {
		for _, cmd := range s.setup {
			b.WriteString(lua(cmd) + "\n")
		}
	}
	b.WriteString("local r = " + lua(s.draw) + "\n")
	b.WriteString("if type(r) ~= 'table' then r = {r} end\n")
	b.WriteString("for _, x in ipairs(r) do out[#out+1] = x end\n")
	if log {
		b.WriteString("for _, x in ipairs(r) do redis.call('hincrby', 'drawn', x, 1) end\n")
	}
	b.WriteString("end\nreturn out\n")
	per := max(1, s.rounds/10)
	s.name += "/script"
	s.draw = []string{"EVAL", b.String(), "0", strconv.Itoa(per)}
	s.rounds /= per
	s.resetup = false
	s.distinct = false
	return s
}

// runSampler collects the draws of s on c and checks the distribution.
func runSampler(t *testing.T, c *Conn, who string, s sampler) {
	t.Helper()
	read := func(what []string) Value {
		t.Helper()
		v, err := c.Read(30 * time.Second)
		if err != nil || v.Kind == '-' {
			t.Fatalf("%s: %.60q: %v %v", who, what, v, err)
		}
		return v
	}
	for _, cmd := range s.setup {
		c.Send(cmd...)
		read(cmd)
	}
	var draws []string
	// Pipelined: the commands of up to 200 rounds per round trip.
	for done := 0; done < s.rounds; {
		n := min(200, s.rounds-done)
		var buf []byte
		for i := 0; i < n; i++ {
			if s.resetup {
				for _, cmd := range s.setup {
					buf = append(buf, testutil.Command(cmd...)...)
				}
			}
			buf = append(buf, testutil.Command(s.draw...)...)
		}
		if err := c.SendRaw(buf); err != nil {
			t.Fatalf("%s: send: %v", who, err)
		}
		for i := 0; i < n; i++ {
			if s.resetup {
				for _, cmd := range s.setup {
					read(cmd)
				}
			}
			v := read(s.draw)
			got := s.drawn(v)
			if s.distinct {
				seen := map[string]bool{}
				for _, g := range got {
					if seen[g] {
						t.Fatalf("%s: %q returned %q twice: %v", who, s.draw, g, v)
					}
					seen[g] = true
				}
			}
			draws = append(draws, got...)
		}
		done += n
	}
	x2, err := chiSquare(s.universe, draws)
	if err != nil {
		t.Fatalf("%s: %.60q: %v", who, s.draw, err)
	}
	bound := chisquare.Bound(len(s.universe) - 1)
	t.Logf("%s: chi-square %.1f over %d draws (bound %.1f)", who, x2, len(draws), bound)
	if x2 > bound {
		t.Errorf("%s: %.60q is not uniform: chi-square %.1f over %d draws, bound %.1f;%s",
			who, s.draw, x2, len(draws), bound, histogram(s.universe, draws))
	}
}

// samplers returns the cases of every random command, over both encodings
// of each type.
func samplers() []sampler {
	var out []sampler
	// A count below zero may repeat elements; above, they are distinct.
	distinct := func(draw []string) bool { return len(draw) > 2 && draw[2][0] != '-' }
	hashes := []struct {
		enc    string
		fields []string
	}{
		{"listpack", elems("f", randomElems, 0)},
		{"hashtable", elems("f", randomElems, 70)}, // over hash-max-listpack-value
	}
	for _, h := range hashes {
		setup := []string{"HSET", "h"}
		for _, f := range h.fields {
			setup = append(setup, f, "v")
		}
		add := func(name string, draw []string, rounds int) {
			out = append(out, sampler{name: "HRANDFIELD/" + h.enc + "/" + name, universe: h.fields,
				setup: [][]string{{"DEL", "h"}, setup}, draw: draw, rounds: rounds,
				pairs: len(draw) == 4, distinct: distinct(draw)})
		}
		add("one", []string{"HRANDFIELD", "h"}, 20000)
		add("negative", []string{"HRANDFIELD", "h", "-1000"}, 20)
		add("negative-withvalues", []string{"HRANDFIELD", "h", "-1000", "WITHVALUES"}, 20)
		add("most", []string{"HRANDFIELD", "h", "12"}, 2000)
		add("few", []string{"HRANDFIELD", "h", "2"}, 10000)
		add("few-withvalues", []string{"HRANDFIELD", "h", "3", "WITHVALUES"}, 7000)
	}
	sets := []struct {
		enc     string
		members []string
	}{
		{"intset", elems("", randomElems, 0)},
		{"hashtable", elems("m", randomElems, 0)},
	}
	for _, s := range sets {
		setup := append([]string{"SADD", "s"}, s.members...)
		add := func(name string, draw []string, rounds int) {
			out = append(out, sampler{name: draw[0] + "/" + s.enc + "/" + name, universe: s.members,
				setup: [][]string{{"DEL", "s"}, setup}, draw: draw, rounds: rounds,
				resetup: draw[0] == "SPOP", distinct: distinct(draw)})
		}
		add("one", []string{"SRANDMEMBER", "s"}, 20000)
		add("negative", []string{"SRANDMEMBER", "s", "-1000"}, 20)
		add("most", []string{"SRANDMEMBER", "s", "12"}, 2000)
		add("few", []string{"SRANDMEMBER", "s", "2"}, 10000)
		add("one", []string{"SPOP", "s"}, 20000)
		add("most", []string{"SPOP", "s", "12"}, 2000)
		add("few", []string{"SPOP", "s", "2"}, 10000)
	}
	zsets := []struct {
		enc     string
		members []string
	}{
		{"listpack", elems("z", randomElems, 0)},
		{"skiplist", elems("z", randomElems, 70)}, // over zset-max-listpack-value
	}
	for _, z := range zsets {
		setup := []string{"ZADD", "z"}
		for i, m := range z.members {
			setup = append(setup, strconv.Itoa(i), m)
		}
		add := func(name string, draw []string, rounds int) {
			out = append(out, sampler{name: "ZRANDMEMBER/" + z.enc + "/" + name, universe: z.members,
				setup: [][]string{{"DEL", "z"}, setup}, draw: draw, rounds: rounds,
				pairs: len(draw) == 4, distinct: distinct(draw)})
		}
		add("one", []string{"ZRANDMEMBER", "z"}, 20000)
		add("negative", []string{"ZRANDMEMBER", "z", "-1000"}, 20)
		add("negative-withscores", []string{"ZRANDMEMBER", "z", "-1000", "WITHSCORES"}, 20)
		add("most", []string{"ZRANDMEMBER", "z", "12"}, 2000)
		add("few", []string{"ZRANDMEMBER", "z", "2"}, 10000)
	}
	keys := elems("key", randomElems, 0)
	setup := [][]string{{"FLUSHDB"}}
	for _, k := range keys {
		setup = append(setup, []string{"SET", k, "v"})
	}
	out = append(out, sampler{name: "RANDOMKEY", universe: keys, setup: setup, draw: []string{"RANDOMKEY"}, rounds: 20000})
	return out
}

// TestRandomDistribution checks every random command's distribution on
// lockkv and on redis-server.
func TestRandomDistribution(t *testing.T) {
	p := NewPair(t)
	for _, s := range samplers() {
		t.Run(s.name, func(t *testing.T) {
			runSampler(t, p.R, "redis", s)
			runSampler(t, p.L, "lockkv", s)
		})
	}
}

// TestRandomDistributionCluster checks the distributions on a 3-node lockkv
// cluster, where SPOP and every command inside a script run in the
// replicated apply: each choice comes from the log entry's seed so that
// every node makes the same one. (The leader answers plain reads itself,
// as a single node does.) At the end every node must hold the same
// keyspace.
func TestRandomDistributionCluster(t *testing.T) {
	if redisAddr == "" {
		t.Skip("conformance: no Redis to compare against: " + skipReason)
	}
	srvs := startCluster(t, 3)
	leader := clusterLeader(t, srvs)
	c, err := Dial(leader.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range samplers() {
		if s.draw[0] == "SPOP" {
			// A fifth as many rounds: each is three writes.
			plain := s
			plain.rounds /= 5
			t.Run(s.name, func(t *testing.T) { runSampler(t, c, "lockkv cluster", plain) })
		}
		s := s.script(s.name != "RANDOMKEY")
		t.Run(s.name, func(t *testing.T) { runSampler(t, c, "lockkv cluster", s) })
	}
	// Every node applies the same log; the keyspaces must agree.
	testutil.Eventually(t, 20*time.Second, func() error {
		var digests []string
		var applied []uint64
		for _, s := range srvs {
			s.Do(func(e *engine.Engine) {
				digests = append(digests, e.Digest())
				applied = append(applied, e.Cluster().Status().AppliedIndex)
			})
		}
		if applied[0] == applied[1] && applied[1] == applied[2] {
			if digests[0] != digests[1] || digests[1] != digests[2] {
				for i, s := range srvs {
					s.Do(func(e *engine.Engine) {
						e.DBs[0].Range(func(k string, en *store.Entry) bool {
							t.Logf("node %d: %q %v", i, k, en.Value.Type())
							return true
						})
					})
				}
				t.Fatalf("nodes applied the same log (index %d) and differ: %v", applied[0], digests)
			}
			return nil
		}
		return fmt.Errorf("nodes did not catch up: applied %v", applied)
	})
}

// startCluster starts an in-process lockkv cluster of n nodes. Its Raft
// timeouts are long: three nodes applying every script share the test
// machine's cores, and an election halfway would fail the commands in
// flight.
func startCluster(t *testing.T, n int) []*lockkv.Server {
	t.Helper()
	var peers []replication.Peer
	for i := 0; i < n; i++ {
		peers = append(peers, replication.Peer{ID: fmt.Sprintf("n%d", i+1),
			RaftAddr: testnet.FreeAddr(t), ClientAddr: testnet.FreeAddr(t)})
	}
	srvs := make([]*lockkv.Server, n)
	for i, p := range peers {
		s, err := lockkv.NewServer(lockkv.Config{Addr: p.ClientAddr, Cluster: &replication.Config{
			NodeID: p.ID, RaftAddr: p.RaftAddr, Bootstrap: true, Peers: peers,
			HeartbeatTimeout: 2 * time.Second, ElectionTimeout: 2 * time.Second,
			// A leader steps down after a second without a quorum (not
			// 500 ms): a loaded CI machine stalls for a few hundred ms.
			LeaderLease: time.Second,
		}})
		if err == nil {
			err = s.Start()
		}
		if err != nil {
			t.Fatalf("start node %d: %v", i, err)
		}
		t.Cleanup(func() { s.Close() })
		srvs[i] = s
	}
	return srvs
}

// clusterLeader waits for the node that leads and serves.
func clusterLeader(t *testing.T, srvs []*lockkv.Server) *lockkv.Server {
	t.Helper()
	var leader *lockkv.Server
	testutil.Eventually(t, 15*time.Second, func() error {
		for _, s := range srvs {
			var ok bool
			s.Do(func(e *engine.Engine) { ok = e.IsLeader() })
			if ok {
				leader = s
				return nil
			}
		}
		return errors.New("no leader")
	})
	return leader
}
