package engine_test

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
)

// TestLeaderLocalCommandsLeaveReplicatedState: what a cluster leader runs
// by itself (reads, EVAL_RO, server and connection commands) must leave
// the replicated state as it was, expired keys included: a key a read
// reclaimed on the leader alone would never be proposed for expiry, and
// the followers would keep it. Every command that is not replicated runs
// on the leader with several argument shapes against keys of every type,
// live and expired, and after each one the leader's state must still be
// the follower's.
func TestLeaderLocalCommandsLeaveReplicatedState(t *testing.T) {
	ec := newEngineCluster(t, 1)
	setup := [][]string{
		{"SET", "s", "12345"}, {"SET", "xs", "v", "PX", "100"},
		{"HSET", "h", "f", "1", "g", "2"}, {"HSET", "xh", "f", "1"}, {"PEXPIRE", "xh", "100"},
		{"RPUSH", "l", "a", "b", "c"}, {"RPUSH", "xl", "a"}, {"PEXPIRE", "xl", "100"},
		{"SADD", "t", "a", "b", "1"}, {"SADD", "xt", "a"}, {"PEXPIRE", "xt", "100"},
		{"ZADD", "z", "1", "a", "2", "b"}, {"ZADD", "xz", "1", "a"}, {"PEXPIRE", "xz", "100"},
		{"SCRIPT", "LOAD", "return 1"}, {"EVAL", "return redis.call('get', KEYS[1])", "1", "s"},
	}
	for _, c := range setup {
		ec.do(c...)
	}
	ec.leader.Advance(200 * time.Millisecond) // the x keys are expired on the leader
	ec.same("after the setup")
	skip := []string{
		"shutdown", "debug", "monitor", "sync", "psync", "replicaof", "slaveof", "failover",
		"save", "bgsave", "bgrewriteaof", "module", "subscribe", "psubscribe", "ssubscribe",
		"client", "hello", "auth", "reset", "quit", "multi", "watch", "select", "swapdb",
		"config", "cluster", "sentinel", "raft.node", "wait", "waitaof",
		"readonly", "readwrite", "asking", "blpop",
	}
	keys := []string{"s", "xs", "h", "xh", "l", "xl", "t", "xt", "z", "xz", "missing"}
	var names []string
	for name := range engine.TableForTest() {
		names = append(names, name)
	}
	sort.Strings(names)
	ran := 0
	for _, name := range names {
		spec := engine.TableForTest()[name]
		if slices.Contains(skip, name) {
			continue
		}
		specs := []*engine.Spec{spec}
		if len(spec.Sub) > 0 {
			specs = spec.Sub
		}
		for _, s := range specs {
			if s.ReplicatedForTest() {
				continue
			}
			cmd := strings.Fields(strings.ReplaceAll(s.FullName(), "|", " "))
			for _, k := range keys {
				for _, extra := range [][]string{nil, {"0", "-1"}, {k}, {"f"}, {"a", "b"}, {"0"}} {
					args := append(append(slices.Clone(cmd), k), extra...)
					ec.do(args...)
					ran++
				}
			}
			ec.same(s.FullName())
		}
	}
	for _, script := range []string{
		"for _, k in ipairs(KEYS) do redis.call('type', k); pcall(redis.call, 'get', k); pcall(redis.call, 'hgetall', k); pcall(redis.call, 'lrange', k, 0, -1); pcall(redis.call, 'smembers', k); pcall(redis.call, 'zrange', k, 0, -1); pcall(redis.call, 'sort_ro', k, 'alpha'); redis.call('exists', k); redis.call('pttl', k) end return math.random(100)",
	} {
		args := append([]string{"EVAL_RO", script, "11"}, keys...)
		ec.do(args...)
		ec.same("EVAL_RO")
	}
	if ran < 1000 {
		t.Fatalf("only %d commands ran", ran)
	}
}
