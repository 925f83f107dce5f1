package lockkv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/replication"
)

// TestClusterScriptsDeterministic: on a cluster, a script that would run
// forever fails with the step budget's error on every node and the
// cluster goes on serving locks; read-only scripts on the leader leave
// the interpreter state (math.random) as every node has it; and a node
// restarted from its snapshot and log holds the same state as the others,
// interpreter state included (Engine.Digest).
func TestClusterScriptsDeterministic(t *testing.T) {
	dir := t.TempDir()
	n := 0
	tc := startClusterWith(t, 3, func(c *replication.Config) {
		n++
		c.DataDir = fmt.Sprintf("%s/n%d", dir, n)
		c.SnapshotThreshold = 4
		c.TrailingLogs = 2
		c.SnapshotInterval = 100 * time.Millisecond
	})
	ctx := context.Background()
	l := tc.leader()
	lc := redis.NewClient(&redis.Options{Addr: tc.peers[l].ClientAddr, MaxRetries: -1, ReadTimeout: time.Minute})
	defer lc.Close()
	want := "ERR " + luaengine.StepBudgetError(luaengine.ReplicatedMaxSteps)
	if err := lc.Eval(ctx, "while true do end", nil).Err(); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("a script that never ends: %v", err)
	}
	// Every node spends a second or two on the runaway at once: on a
	// loaded machine that can cost the cluster an election, so what
	// follows goes to whichever node leads now.
	if err := tc.onLeader(func(c *redis.Client) error {
		return c.Eval(ctx, lockscripts.Acquire, []string{"lock"}, 30000, "owner:1").Err()
	}); err != redis.Nil {
		t.Fatalf("a lock after the runaway: %v", err)
	}
	for i := 0; i < 5; i++ {
		if err := tc.onLeader(func(c *redis.Client) error {
			return c.EvalRO(ctx, "#!lua flags=no-writes\nreturn math.random(1000000)", nil).Err()
		}); err != nil {
			t.Fatal(err)
		}
		if err := tc.onLeader(func(c *redis.Client) error {
			return c.Eval(ctx, "return redis.call('rpush', KEYS[1], math.random(1000000))", []string{"draws"}).Err()
		}); err != nil {
			t.Fatal(err)
		}
	}
	// A follower restarts: it restores its snapshot and replays its log.
	l = tc.leader()
	f := (l + 1) % 3
	waitFor(t, "a snapshot on the follower", func() bool {
		var snap uint64
		tc.srvs[f].Do(func(e *engine.Engine) { snap = e.Cluster().Status().LastSnapshotIndex })
		return snap > 0
	})
	tc.stop(f)
	tc.start(f)
	if err := tc.onLeader(func(c *redis.Client) error {
		return c.Eval(ctx, "return redis.call('rpush', KEYS[1], math.random(1000000))", []string{"draws"}).Err()
	}); err != nil {
		t.Fatal(err)
	}
	var digests [3]string
	waitFor(t, "every node to hold the leader's state", func() bool {
		var applied [3]uint64
		for i, s := range tc.srvs {
			s.Do(func(e *engine.Engine) {
				digests[i] = e.Digest()
				applied[i] = e.Cluster().Status().AppliedIndex
			})
		}
		return applied[0] == applied[1] && applied[1] == applied[2] && digests[0] == digests[1] && digests[1] == digests[2]
	})
}

// TestClusterScriptNodeLocalDiverge: on a cluster every node runs a
// script applied from the log itself, so a script that writes what a
// node-local command (INFO, MEMORY STATS, CLUSTER MYID) answered, or
// branches on it before a write, would leave different keyspaces on the
// nodes: each node refuses those writes alike and the client gets the
// refusal. A script that only returns the answer gets the leader's.
func TestClusterScriptNodeLocalDiverge(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	if err := tc.onLeader(func(c *redis.Client) error { return c.Set(ctx, "base", "1", 0).Err() }); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		"redis.call('SET', 'k', redis.call('INFO', 'server'))",
		"local s = redis.call('MEMORY', 'STATS') redis.call('SET', 'k', cjson.encode(s))",
		"redis.call('SET', 'k', redis.call('CLUSTER', 'MYID'))",
		"if string.find(redis.call('INFO', 'replication'), 'role:master', 1, true) then " +
			"redis.call('SET', 'k', 'leader') else redis.call('DEL', 'base') end",
	} {
		err := tc.onLeader(func(c *redis.Client) error { return c.Eval(ctx, script, nil).Err() })
		if err == nil || !strings.HasPrefix(err.Error(), engine.ErrWriteAfterNodeLocal+" script: ") {
			t.Errorf("%s: %v", script, err)
		}
	}
	requireSameState(t, tc, "after the scripts")
	var info string
	if err := tc.onLeader(func(c *redis.Client) error {
		var err error
		info, err = c.Eval(ctx, "return redis.call('INFO', 'replication')", nil).Text()
		return err
	}); err != nil || !strings.Contains(info, "role:master") {
		t.Fatalf("the leader's INFO from a script: %q, %v", info, err)
	}
	if n, err := tc.client(tc.leader()).Exists(ctx, "k", "base").Result(); err != nil || n != 1 {
		t.Fatalf("EXISTS k base: %d, %v", n, err)
	}
}

// TestDurableSingleServerNodeLocal: a durable single server is a cluster
// of one and replays its log at restart, where INFO answers otherwise:
// it refuses the same writes a cluster refuses.
func TestDurableSingleServerNodeLocal(t *testing.T) {
	tc := startCluster(t, 1)
	ctx := context.Background()
	script := "redis.call('SET', 'k', redis.call('INFO', 'server'))"
	err := tc.onLeader(func(c *redis.Client) error { return c.Eval(ctx, script, nil).Err() })
	if err == nil || !strings.HasPrefix(err.Error(), engine.ErrWriteAfterNodeLocal+" script: ") {
		t.Fatalf("%s: %v", script, err)
	}
}
