package engine_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/luaengine"
)

// nodeLocalRefusal is the error a script applied from the log gets for a
// write after a NodeLocal command, as redis.call raises it.
func nodeLocalRefusal(script string) string {
	return "-" + engine.ErrWriteAfterNodeLocal + " script: " + sha1hex(script) + ", on @user_script:1.\r\n"
}

// TestReplicatedScriptNodeLocalWrites: a script applied from a cluster's
// log that calls a command whose answer is the node's own (INFO, MEMORY
// STATS, OBJECT FREQ, ...) and then writes what it saw, or branches on it
// before a write, would leave different keyspaces on the nodes: every
// node refuses such writes alike, the client gets the refusal, and the
// nodes stay equal. Without the refusal (scriptGate) each case leaves the
// follower different from the leader.
func TestReplicatedScriptNodeLocalWrites(t *testing.T) {
	for _, script := range []string{
		"local i = redis.call('INFO') redis.call('SET', 'k', i)",
		"redis.call('SET', 'k', redis.call('OBJECT', 'FREQ', 'hot'))",
		"local s = redis.call('MEMORY', 'STATS') redis.call('SET', 'k', cjson.encode(s))",
		"local n = redis.call('PUBSUB', 'NUMSUB', 'ch') redis.call('SET', 'k', n[2])",
		// The leader has clients, the followers none.
		"if string.find(redis.call('INFO', 'clients'), 'connected_clients:0\\r\\n', 1, true) then " +
			"redis.call('SET', 'k', 'follower') else redis.call('SET', 'k', 'leader') end",
		"if not string.find(redis.call('INFO', 'clients'), 'connected_clients:0\\r\\n', 1, true) then " +
			"redis.call('DEL', 'hot') end",
	} {
		t.Run(script, func(t *testing.T) {
			ec := newEngineCluster(t, 2)
			// OBJECT FREQ answers under an LFU policy (the leader's
			// travels in the op); the leader's reads raise its counter,
			// not the followers'.
			ec.do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
			ec.do("SET", "hot", "1")
			for i := 0; i < 200; i++ {
				ec.do("GET", "hot")
			}
			// A subscriber on the leader.
			sub, subConn := ec.leader.Client()
			ec.leader.Do(sub, subConn, "SUBSCRIBE", "ch")
			ec.same("before the script")
			if got, want := ec.do("EVAL", script, "0"), nodeLocalRefusal(script); got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
			ec.same("after the script")
			if got := ec.do("EXISTS", "k", "hot"); got != ":1\r\n" {
				t.Fatalf("EXISTS k hot = %q: the script wrote", got)
			}
		})
	}
	// CLIENT ID is refused in every script, as in Redis.
	ec := newEngineCluster(t, 1)
	if got := ec.do("EVAL", "redis.call('SET', 'k', redis.call('CLIENT', 'ID'))", "0"); !strings.HasPrefix(got, "-"+engine.ErrNoScriptCommand) {
		t.Fatalf("CLIENT ID in a script: %q", got)
	}
	ec.same("after CLIENT ID")
}

// TestReplicatedScriptNodeLocalRules: what else a script applied from the
// log may do after a NodeLocal command, and what it leaves.
func TestReplicatedScriptNodeLocalRules(t *testing.T) {
	ec := newEngineCluster(t, 1)
	// The client gets the leader's own answer: replies come only from the
	// node that answers.
	if got := ec.do("EVAL", "return redis.call('INFO', 'clients')", "0"); !strings.Contains(got, "connected_clients:1\r\n") {
		t.Fatalf("the leader's INFO: %q", got)
	}
	// Writes before the call stay, reads after it run, and redis.pcall
	// catches the refusal (still nothing is written).
	script := "redis.call('SET', 'before', '1') local i = redis.call('INFO') " +
		"local r = redis.pcall('SET', 'after', i) return {redis.call('GET', 'before'), r['err']}"
	if got, want := ec.do("EVAL", script, "0"), "*2\r\n$1\r\n1\r\n$"; !strings.HasPrefix(got, want) ||
		!strings.Contains(got, engine.ErrWriteAfterNodeLocal) {
		t.Fatalf("pcall: %q", got)
	}
	if got := ec.do("EXISTS", "before", "after"); got != ":1\r\n" {
		t.Fatalf("EXISTS before after: %q", got)
	}
	ec.same("after pcall")

	// Functions are scripts too.
	lib := "#!lua name=nl\nredis.register_function('nl', function() redis.call('SET', 'k', redis.call('INFO')) end)"
	if got := ec.do("FUNCTION", "LOAD", lib); got != "$2\r\nnl\r\n" {
		t.Fatal(got)
	}
	if got := ec.do("FCALL", "nl", "0"); !strings.HasPrefix(got, "-"+engine.ErrWriteAfterNodeLocal+" script: nl, on @user_function:2.") {
		t.Fatalf("FCALL: %q", got)
	}
	ec.same("after FCALL")

	// The interpreter's state goes back to what it was at the call:
	// math.random draws on after it as many times as the node decides,
	// and cjson's settings change on the leader only.
	branch := "if string.find(redis.call('INFO', 'clients'), 'connected_clients:1\\r\\n', 1, true) then " +
		"math.random() math.random() cjson.encode_max_depth(2) end return 1"
	if got := ec.do("EVAL", branch, "0"); got != ":1\r\n" {
		t.Fatalf("branch: %q", got)
	}
	ec.do("EVAL", interpreterProbe, "1", "probe")
	ec.same("after scripts that draw numbers after INFO")

	// A transaction: the script that called INFO spends the op's budget,
	// since the steps it took after the call differ between the nodes
	// (here the leader spins through the budget, the follower returns),
	// so a later script of the transaction fails alike everywhere;
	// commands that are not scripts still run.
	ec.do("MULTI")
	ec.do("EVAL", "if not string.find(redis.call('INFO', 'clients'), 'connected_clients:0\\r\\n', 1, true) then "+
		"for j = 1, 1e12 do end end return 1", "0")
	ec.do("EVAL", "for j = 1, 10 do redis.call('INCR', 'n') end return 1", "0")
	ec.do("SET", "plain", "1")
	got := ec.do("EXEC")
	budget := "-ERR " + luaengine.StepBudgetError(luaengine.ReplicatedMaxSteps)
	if !strings.HasPrefix(got, "*3\r\n"+budget) || strings.Count(got, budget) != 2 || !strings.HasSuffix(got, "+OK\r\n") {
		t.Fatalf("EXEC: %q", got)
	}
	ec.same("after the transaction")
	// The next op has a budget of its own and writes again.
	if got := ec.do("EVAL", "redis.call('SET', 'k', 'v') return redis.call('GET', 'k')", "0"); got != "$1\r\nv\r\n" {
		t.Fatalf("the next script: %q", got)
	}
	ec.same("after the next script")
}

// TestNodeLocalOnlyOnClusters: a single server runs scripts as Redis 7.0
// does (effects replication has nothing to refuse), and a cluster node's
// read-only scripts run where they are sent and write nothing.
func TestNodeLocalOnlyOnClusters(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.Expect(cl, conn, ":1\r\n", "EVAL", "redis.call('SET', 'k', redis.call('INFO')) redis.call('SET', 't', redis.call('TIME')[1]) return 1", "0")
	te.Expect(cl, conn, ":2\r\n", "EXISTS", "k", "t")

	ec := newEngineCluster(t, 1)
	if got := ec.do("EVAL_RO", "return redis.call('INFO', 'clients')", "0"); !strings.Contains(got, "connected_clients:1\r\n") {
		t.Fatalf("EVAL_RO: %q", got)
	}
	if ec.r.Ops != nil || ec.index != 0 {
		t.Fatal("EVAL_RO was proposed")
	}
	// TIME, RANDOMKEY, SRANDMEMBER, SPOP, TTL and SCAN answer from the
	// entry's time and seed: not NodeLocal, a script may write what they
	// say.
	ec.do("SADD", "s", "a", "b", "c")
	ec.do("SET", "e", "1", "PX", "100000")
	script := "local t = redis.call('TIME') local r = redis.call('RANDOMKEY') local m = redis.call('SRANDMEMBER', 's') " +
		"local p = redis.call('SPOP', 's') local ttl = redis.call('PTTL', 'e') local sc = redis.call('SCAN', 0) " +
		"redis.call('SET', 'k', t[1] .. t[2] .. r .. m .. p .. ttl .. sc[1] .. table.concat(sc[2], ',')) return 1"
	if got := ec.do("EVAL", script, "0"); got != ":1\r\n" {
		t.Fatalf("a script writing what deterministic commands said: %q", got)
	}
	ec.same("after deterministic commands")
}

// TestNodeLocalCommands: the commands whose answer is the node's own, so
// that a change to the table is a decision (each entry's comment says
// why it is NodeLocal), and every command Redis tips as nondeterministic
// is either NodeLocal or made alike on every node by the applied entry.
func TestNodeLocalCommands(t *testing.T) {
	want := []string{
		"client|getname", "client|getredir", "client|id", "client|info", "client|kill", "client|list",
		"client|trackinginfo", "client|unblock",
		"cluster|getkeysinslot", "cluster|info", "cluster|myid", "cluster|nodes", "cluster|replicas",
		"cluster|shards", "cluster|slaves", "cluster|slots",
		"config|get", "debug", "dump", "function|stats", "hello", "info", "lastsave",
		"latency|doctor", "latency|graph", "latency|histogram", "latency|history", "latency|latest",
		"memory|stats", "memory|usage", "object|freq", "object|idletime",
		"pubsub|channels", "pubsub|numpat", "pubsub|numsub", "pubsub|shardchannels", "pubsub|shardnumsub",
		"role",
		"sentinel|ckquorum", "sentinel|get-master-addr-by-name", "sentinel|master", "sentinel|masters",
		"sentinel|myid", "sentinel|replicas", "sentinel|sentinels", "sentinel|slaves",
		"slowlog|get", "slowlog|len", "wait", "waitaof",
	}
	// Tipped nondeterministic_output, yet alike on every node while an
	// entry applies: the entry's time (TIME, TTL, PTTL), its seed
	// (RANDOMKEY, the *RANDMEMBER/HRANDFIELD family, the SCANs), the
	// replicated value (OBJECT ENCODING and REFCOUNT), a fixed answer on
	// lockkv (MEMORY DOCTOR and MALLOC-STATS, CLUSTER's commands that
	// answer "cluster support disabled"), or refused in scripts.
	deterministic := []string{
		"time", "ttl", "pttl", "randomkey", "srandmember", "hrandfield", "zrandmember",
		"scan", "sscan", "hscan", "zscan", "object|encoding", "object|refcount",
		"memory|doctor", "memory|malloc-stats", "cluster|bumpepoch", "cluster|count-failure-reports", "cluster|links",
	}
	var got []string
	check := func(s *engine.Spec) {
		if s.NodeLocal {
			got = append(got, s.FullName())
			return
		}
		if slices.Contains(s.Tips, "nondeterministic_output") && s.Flags&engine.NoScript == 0 && s.Flags&engine.Write == 0 &&
			!slices.Contains(deterministic, s.FullName()) {
			t.Errorf("%s is tipped nondeterministic_output: decide whether it is NodeLocal", s.FullName())
		}
	}
	for _, s := range engine.All() {
		check(s)
		for _, sub := range s.Sub {
			check(sub)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("NodeLocal commands:\n got %q\nwant %q", got, want)
	}
}

// TestScriptsWriteAnswersAlike: every command a script may call that is
// not a write, called with several argument shapes from a script applied
// from the log that then writes what it answered, leaves every node with
// the same state, although the leader's own state differs from its
// followers' in every way a node's can (its reads raised LFU counters,
// it has clients, a subscriber, a slow log; one follower rebuilt its hash
// tables from a snapshot): a NodeLocal command's write is refused, and
// every other command answers alike. PUBLISH and SPUBLISH are left out:
// their count is the node's (DESIGN.md, "Scripts in the log"). Without
// the refusal, or with NodeLocal taken off INFO, DUMP, MEMORY USAGE or
// STATS, OBJECT FREQ, PUBSUB CHANNELS or NUMSUB, SLOWLOG GET or LEN, the
// nodes differ here (CLUSTER's and SENTINEL's need a cluster:
// TestClusterScriptNodeLocalDiverge).
func TestScriptsWriteAnswersAlike(t *testing.T) {
	ec := newEngineCluster(t, 1)
	ec.do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	ec.do("CONFIG", "SET", "slowlog-log-slower-than", "0")
	setup := [][]string{
		{"SET", "s", "12345"}, {"SET", "xs", "v", "PX", "100"},
		{"HSET", "h", "f", "1", "g", "2"}, {"RPUSH", "l", "a", "b", "c"},
		{"SADD", "t", "a", "b", "1"}, {"ZADD", "z", "1", "a", "2", "b"},
	}
	big := []string{"SADD", "bt"}
	bigh := []string{"HSET", "bh"}
	for i := 0; i < 300; i++ {
		big = append(big, "m"+strconv.Itoa(i))
		bigh = append(bigh, "f"+strconv.Itoa(i), "v")
	}
	setup = append(setup, big, bigh)
	for _, c := range setup {
		ec.do(c...)
	}
	ec.restoredFollower()
	for i := 0; i < 100; i++ {
		ec.do("GET", "s")
		ec.do("HGET", "h", "f")
	}
	sub, subConn := ec.leader.Client()
	ec.leader.Do(sub, subConn, "SUBSCRIBE", "ch")
	ec.leader.Advance(200 * time.Millisecond)
	ec.same("after the setup")

	// Each answer is kept under a key of its own, in a database the
	// commands do not look at.
	script := "local r = redis.pcall(unpack(ARGV)) local ok, s = pcall(cjson.encode, r) " +
		"redis.call('SELECT', 9) return redis.pcall('SET', KEYS[1], ok and s or tostring(r))"
	keys := []string{"s", "xs", "h", "l", "t", "z", "bt", "bh", "missing"}
	ran, refused := 0, 0
	for _, top := range engine.All() {
		specs := []*engine.Spec{top}
		if len(top.Sub) > 0 {
			specs = top.Sub
		}
		for _, s := range specs {
			if s.Flags&(engine.NoScript|engine.Write) != 0 || s.Flags&engine.MayReplicate != 0 && s.Flags&engine.PubSub != 0 {
				continue
			}
			cmd := strings.Fields(strings.ReplaceAll(s.FullName(), "|", " "))
			shapes := [][]string{nil}
			for _, k := range keys {
				for _, extra := range [][]string{nil, {"0", "-1"}, {"f"}, {"a", "b"}, {"0"}, {"ch"}} {
					shapes = append(shapes, append([]string{k}, extra...))
				}
			}
			for _, shape := range shapes {
				args := append(append([]string{"EVAL", script, "1", "probe:" + strconv.Itoa(ran)}, cmd...), shape...)
				got := ec.do(args...)
				ran++
				if strings.HasPrefix(got, "-"+engine.ErrWriteAfterNodeLocal) {
					if !s.NodeLocal {
						t.Fatalf("%q: %q", args[4:], got)
					}
					refused++
				}
			}
			ec.same(s.FullName())
		}
	}
	if ran < 1000 || refused == 0 {
		t.Fatalf("%d scripts ran, %d refused", ran, refused)
	}
}
