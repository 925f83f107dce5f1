package lockkv

import (
	"context"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
)

// TestClusterMaxmemoryDecidedByLeader: on a cluster the leader decides,
// before it proposes, whether a command is refused for memory, and the
// memory state a script starts in travels in the op: every node stops a
// script at the same write whatever its own maxmemory, and a follower's
// maxmemory refuses nothing it applies.
func TestClusterMaxmemoryDecidedByLeader(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	l := tc.leader()
	f := (l + 1) % 3
	lc := tc.client(l)
	if err := tc.client(f).ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	// The leader is under its limit (none): writes and scripts run on
	// every node, the follower over its own limit included.
	if err := lc.Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Eval(ctx, "return redis.call('set','g','1')", nil).Err(); err != nil {
		t.Fatal(err)
	}
	// Over the leader's limit: refused before anything is proposed; a
	// script without flags fails at its first write, unless it deleted
	// first.
	if err := lc.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Set(ctx, "b", "1", 0).Err(); err == nil || err.Error() != engine.ErrOOM {
		t.Fatalf("SET over maxmemory: %v, want %q", err, engine.ErrOOM)
	}
	if err := lc.Eval(ctx, "redis.call('del','a'); return redis.call('set','c','1')", nil).Err(); err != nil {
		t.Fatalf("script that deletes first: %v", err)
	}
	err := lc.Eval(ctx, "return redis.call('set','d','1')", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), engine.ErrOOM+" script: ") {
		t.Fatalf("script writing first: %v, want the OOM error", err)
	}
	if err := lc.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Set(ctx, "e", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for i := range tc.srvs {
		waitFor(t, "the last write on every node", func() bool { return tc.has(i, "e") })
		for key, want := range map[string]bool{"a": false, "b": false, "c": true, "d": false, "g": true} {
			if got := tc.has(i, key); got != want {
				t.Errorf("node %d: key %s present %v, want %v", i, key, got, want)
			}
		}
	}
	var digests []string
	for _, s := range tc.srvs {
		s.Do(func(e *engine.Engine) { digests = append(digests, e.Digest()) })
	}
	if digests[0] != digests[1] || digests[0] != digests[2] {
		t.Fatalf("nodes differ: %v", digests)
	}
}
