package engine_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/luaengine"
)

// Scripts in the log: what a script run applied from a cluster's log
// does must be the same on every node, at every replay, and after a
// restore from a snapshot (DESIGN.md, "Scripts in the log").

// engineCluster is a leader and followers that apply every entry the
// leader proposes, without Raft.
type engineCluster struct {
	t         *testing.T
	leader    *enginetest.Engine
	r         *enginetest.StubReplicator
	followers []*engine.Engine
	index     uint64
	cl        *engine.Client
	conn      *enginetest.Conn
}

func newEngineCluster(t *testing.T, followers int) *engineCluster {
	te, r := replicatedEngine(t)
	ec := &engineCluster{t: t, leader: te, r: r}
	for i := 0; i < followers; i++ {
		ec.addFollower(enginetest.New(t).E)
	}
	ec.cl, ec.conn = te.Client()
	return ec
}

func (ec *engineCluster) addFollower(e *engine.Engine) {
	e.EnableReplicationForTest(&enginetest.StubReplicator{}, uint64(100+len(ec.followers)))
	ec.followers = append(ec.followers, e)
}

// do runs a command as the leader's client, commits what it proposed on
// every node and returns the leader's reply.
func (ec *engineCluster) do(args ...string) string {
	ec.t.Helper()
	out := ec.leader.Do(ec.cl, ec.conn, args...)
	for len(ec.r.Ops) > 0 {
		ops := ec.r.Ops
		ec.r.Ops = nil
		ec.index++
		now := ec.leader.E.NowMs()
		for _, f := range ec.followers {
			f.ApplyEntry(ec.index, now, ec.index, nil, cloneOps(ops))
		}
		ec.leader.E.ApplyEntry(ec.index, now, ec.index, nil, ops)
		ec.leader.E.FlushOutputs()
		out += string(ec.conn.Out)
		ec.conn.Out = ec.conn.Out[:0]
	}
	return out
}

// same fails unless every node holds the leader's state.
func (ec *engineCluster) same(when string) {
	ec.t.Helper()
	want := ec.leader.E.Digest()
	for i, f := range ec.followers {
		if f.Digest() != want {
			ec.t.Fatalf("%s: follower %d differs from the leader", when, i)
		}
	}
}

// restoredFollower adds a follower restored from a snapshot of the leader.
func (ec *engineCluster) restoredFollower() {
	ec.t.Helper()
	e := enginetest.New(ec.t).E
	if _, err := e.Restore(bytes.NewReader(snapshotBytes(ec.t, ec.leader.E, ""))); err != nil {
		ec.t.Fatal(err)
	}
	ec.addFollower(e)
}

// TestReplicatedScriptStepBudget: a script applied from the log that
// would never end fails with the budget's error on every node, at the same
// point (what it wrote before stays, as after any script error), and the
// cluster goes on. Without the budget the apply never returns.
func TestReplicatedScriptStepBudget(t *testing.T) {
	ec := newEngineCluster(t, 1)
	budget := "ERR " + luaengine.StepBudgetError(luaengine.ReplicatedMaxSteps)
	for _, tc := range []struct{ script, want string }{
		{"while true do end", "-" + budget + " script: " + sha1hex("while true do end") + ", on @user_script:1.\r\n"},
		{"local t = {} for i = 1, 1e12 do redis.call('rpush', 'l', i) t[#t+1] = 'x' .. i end", ""},
	} {
		got := ec.do("EVAL", tc.script, "0")
		if !strings.HasPrefix(got, "-"+budget) || (tc.want != "" && got != tc.want) {
			t.Fatalf("%s: %q", tc.script, got)
		}
	}
	ec.same("after the runaways")
	n := ec.do("LLEN", "l")
	if n == ":0\r\n" || !strings.HasPrefix(n, ":") {
		t.Fatalf("LLEN = %q: the writes before the budget ran out are kept", n)
	}
	if got := ec.do("EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "k"); got != "+OK\r\n" {
		t.Fatalf("the next script: %q", got)
	}
	ec.same("after the next script")
}

// TestReplicatedFunctionLoadCountsSteps: FUNCTION LOAD applied from the
// log stops its library's code by the step budget, not by the clock: code
// that runs for about Redis's 500 ms (three million check points, nine
// million steps) loads on every node however slow (with the clock, a
// slower node would refuse a library a faster one loaded), and code that
// never ends fails on every node alike.
func TestReplicatedFunctionLoadCountsSteps(t *testing.T) {
	ec := newEngineCluster(t, 1)
	slow := "#!lua name=slow\nfor i = 1, 3000000 do end\nredis.register_function('f', function() return 1 end)"
	if got := ec.do("FUNCTION", "LOAD", slow); got != "$4\r\nslow\r\n" {
		t.Fatalf("FUNCTION LOAD of a slow library: %q", got)
	}
	spin := "#!lua name=spin\nwhile true do end"
	// Redis words a load timeout "ERR Error registering functions: ERR
	// FUNCTION LOAD timeout".
	want := "-ERR Error registering functions: ERR " + luaengine.StepBudgetError(luaengine.ReplicatedMaxSteps)
	if got := ec.do("FUNCTION", "LOAD", spin); !strings.HasPrefix(got, want) {
		t.Fatalf("FUNCTION LOAD of a library that never ends: %q", got)
	}
	if got := ec.do("FCALL", "f", "0"); got != ":1\r\n" {
		t.Fatalf("FCALL: %q", got)
	}
	ec.same("after the loads")
}

// interpreterProbe writes to KEYS[1] what the interpreter's state decides:
// math.random's next numbers, how cjson encodes a nested table and
// collectgarbage's settings.
const interpreterProbe = `local ok, enc = pcall(cjson.encode, {{{1}}})
local probe = tostring(math.random()) .. ' ' .. math.random(1000) .. ' ' .. tostring(enc) ..
  ' ' .. collectgarbage('setpause', 200) .. ' ' .. collectgarbage('setstepmul', 200)
redis.call('set', KEYS[1], probe)
return probe`

// interpreterChange changes every part of the interpreter's state.
const interpreterChange = `math.random() cjson.encode_max_depth(2) collectgarbage('setpause', 77)
collectgarbage('setstepmul', 33) return 1`

// TestReadOnlyScriptsKeepInterpreterState: EVAL_RO and FCALL_RO run on
// the leader only; whatever they do to the interpreter (math.random's
// generator, cjson's settings, collectgarbage's) must not change what a
// later script applied from the log does on the leader, or the leader's
// keyspace would differ from its followers'.
func TestReadOnlyScriptsKeepInterpreterState(t *testing.T) {
	ec := newEngineCluster(t, 1)
	lib := "#!lua name=lib\n" +
		"redis.register_function{function_name='change', callback=function() " + strings.ReplaceAll(interpreterChange, "\n", " ") + " end, flags={'no-writes'}}\n" +
		"redis.register_function('probe', function(KEYS) " + strings.ReplaceAll(interpreterProbe, "\n", " ") + " end)"
	if got := ec.do("FUNCTION", "LOAD", lib); got != "$3\r\nlib\r\n" {
		t.Fatal(got)
	}
	for _, cmd := range [][]string{
		{"EVAL_RO", interpreterChange, "0"},
		{"EVAL_RO", "#!lua flags=no-writes\n" + interpreterChange, "0"},
		{"FCALL_RO", "change", "0"},
	} {
		if got := ec.do(cmd...); got != ":1\r\n" {
			t.Fatalf("%s: %q", cmd[0], got)
		}
		if ec.r.Ops != nil || ec.index != 1 {
			t.Fatalf("%s was proposed", cmd[0])
		}
	}
	ec.do("EVAL", interpreterProbe, "1", "eval")
	ec.do("FCALL", "probe", "1", "fcall")
	ec.same("after read-only scripts on the leader")
}

// TestSnapshotKeepsInterpreterState: a node restored from a snapshot
// holds the interpreters' state the others hold (math.random's generator
// advanced by every script before, cjson's and collectgarbage's settings),
// so the scripts after the snapshot do on it what they do elsewhere.
func TestSnapshotKeepsInterpreterState(t *testing.T) {
	ec := newEngineCluster(t, 1)
	lib := "#!lua name=lib\n" +
		"redis.register_function('change', function() " + strings.ReplaceAll(interpreterChange, "\n", " ") + " end)\n" +
		"redis.register_function('probe', function(KEYS) " + strings.ReplaceAll(interpreterProbe, "\n", " ") + " end)"
	ec.do("FUNCTION", "LOAD", lib)
	ec.do("EVAL", interpreterChange, "0")
	ec.do("FCALL", "change", "0")
	ec.restoredFollower()
	ec.same("after the restore")
	ec.do("EVAL", interpreterProbe, "1", "eval")
	ec.do("FCALL", "probe", "1", "fcall")
	ec.same("after scripts that follow the snapshot")
	// The state is part of the replicated state: it shows in the digest.
	before := ec.leader.E.Digest()
	ec.do("EVAL", "math.random() return 1", "0")
	if ec.leader.E.Digest() == before {
		t.Fatal("math.random's generator is not in the digest")
	}
}

// TestSnapshotInterpreterStateBounds: a snapshot whose interpreter state
// is out of the bounds cjson's setters keep is refused.
func TestSnapshotInterpreterStateBounds(t *testing.T) {
	for _, s := range []luaengine.State{luaengine.DefaultState()} {
		b := luaengine.AppendState(nil, s)
		if got, err := luaengine.DecodeState(b); err != nil || got != s {
			t.Fatalf("round trip: %v, %v", got, err)
		}
		for i := range b {
			if _, err := luaengine.DecodeState(b[:i]); err == nil {
				t.Fatalf("a state cut at %d decoded", i)
			}
		}
		bad := append([]byte{}, b...)
		bad[len(bad)-5] = 0x7f // precision -64
		if _, err := luaengine.DecodeState(bad); err == nil {
			t.Fatal("a precision out of cjson's bounds decoded")
		}
	}
}

// TestApplyFollowsLeaderSettings: the settings that shape what apply does
// (proto-max-bulk-len, the encoding thresholds, LFU's) are each node's
// own CONFIG, but every node applies an op with its leader's, so a node
// configured otherwise holds the same keyspace; its own settings are left
// as they were.
func TestApplyFollowsLeaderSettings(t *testing.T) {
	ec := newEngineCluster(t, 1)
	for _, kv := range [][2]string{
		{"hash-max-listpack-entries", "2"}, {"set-max-intset-entries", "1"}, {"zset-max-listpack-entries", "1"},
		{"proto-max-bulk-len", "1mb"}, {"maxmemory-policy", "allkeys-lfu"},
	} {
		if got := ec.do("CONFIG", "SET", kv[0], kv[1]); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s: %q", kv[0], got)
		}
	}
	ec.do("HSET", "h", "a", "1", "b", "2", "c", "3")
	ec.do("SADD", "s", "1", "2", "3", "4", "5", "6", "7", "8")
	ec.do("ZADD", "z", "1", "a", "2", "b")
	if got := ec.do("SETRANGE", "big", "2000000", "x"); got != "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n" {
		t.Fatalf("SETRANGE past the leader's proto-max-bulk-len: %q", got)
	}
	ec.do("SET", "x", "1")
	ec.do("MULTI")
	for i := 0; i < 50; i++ {
		ec.do("GET", "x")
	}
	ec.do("SPOP", "s")
	ec.do("EXEC")
	ec.same("with the leader configured otherwise")
	f := ec.followers[0]
	if f.Config.HashMaxListpackEntries != 512 || f.Config.ProtoMaxBulkLen != 512<<20 || f.Config.LFU {
		t.Fatal("applying changed the follower's own settings")
	}
}

// TestReplicatedTransactionSharesBudget: the scripts of one transaction
// share one budget, so a transaction of runaways costs a node one budget,
// not one per script.
func TestReplicatedTransactionSharesBudget(t *testing.T) {
	ec := newEngineCluster(t, 1)
	runaway := func(key string) string { return "for i = 1, 1e12 do redis.call('incr', '" + key + "') end" }
	ec.do("MULTI")
	ec.do("EVAL", runaway("n"), "0")
	ec.do("EVAL", runaway("m"), "0")
	got := ec.do("EXEC")
	budget := "ERR " + luaengine.StepBudgetError(luaengine.ReplicatedMaxSteps)
	if strings.Count(got, budget) != 2 {
		t.Fatalf("EXEC: %q", got)
	}
	if n := ec.do("GET", "n"); len(n) < len("$4\r\n1000\r\n") {
		t.Fatalf("the first script ran %q increments", n)
	}
	if m := ec.do("GET", "m"); m != "$-1\r\n" && m != "$1\r\n1\r\n" {
		t.Fatalf("the second script ran %q increments: the budget was not shared", m)
	}
	// The next op has a budget of its own.
	if got := ec.do("EVAL", "for i = 1, 1000 do redis.call('incr', 'k') end return 1", "0"); got != ":1\r\n" {
		t.Fatalf("the next op: %q", got)
	}
	ec.same("after the transaction")
}
