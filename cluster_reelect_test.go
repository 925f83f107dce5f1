package lockkv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/replication"
)

// TestClusterLeaderReelectedWhileBusy: a leader that loses leadership and
// wins it back while its command goroutine is busy (the goroutine that
// follows Raft's leadership waits on it) still steps down in between:
// what its engine holds as leader belongs to the old term (here a client
// blocked there, which must get the step-down error, as on any failover),
// and it serves again only after a barrier, with the other leader's
// writes applied.
func TestClusterLeaderReelectedWhileBusy(t *testing.T) {
	tc := startClusterWith(t, 3, func(c *replication.Config) {
		// No watchdog: the test moves leadership itself.
		c.Stalled = func() time.Duration { return 0 }
	})
	a := tc.leader()
	b := (a + 1) % 3
	ctx := context.Background()
	blocked := tc.client(a)
	popped := make(chan error, 1)
	go func() { popped <- blocked.BLPop(ctx, 0, "q").Err() }()
	waitFor(t, "the client to block on the leader", func() bool {
		info, _ := tc.client(a).Info(ctx, "clients").Result()
		return strings.Contains(info, "blocked_clients:1")
	})

	release := make(chan struct{})
	busy := make(chan struct{})
	go func() {
		tc.srvs[a].Do(func(*engine.Engine) {
			close(busy)
			<-release
		})
	}()
	<-busy
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	ra, rb := tc.srvs[a].Node().Raft(), tc.srvs[b].Node().Raft()
	if err := ra.LeadershipTransferToServer(raft.ServerID(tc.peers[b].ID), raft.ServerAddress(tc.peers[b].RaftAddr)).Error(); err != nil {
		t.Fatalf("transfer to n%d: %v", b+1, err)
	}
	waitFor(t, "the other node to serve", func() bool {
		var ok bool
		tc.srvs[b].Do(func(e *engine.Engine) { ok = e.IsLeader() })
		return ok
	})
	if err := tc.client(b).Set(ctx, "k", "written by the other leader", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rb.LeadershipTransferToServer(raft.ServerID(tc.peers[a].ID), raft.ServerAddress(tc.peers[a].RaftAddr)).Error(); err != nil {
		t.Fatalf("transfer back to n%d: %v", a+1, err)
	}
	waitFor(t, "leadership back on the busy node", func() bool { return ra.State() == raft.Leader })
	close(release)
	released = true

	select {
	case err := <-popped:
		t.Logf("popped: %v", err)
		if err == nil || !strings.HasPrefix(err.Error(), "UNBLOCKED") {
			t.Fatalf("blocked client: %v, want the step-down error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client blocked in the old term still waits: the node never stepped down in its engine")
	}
	waitFor(t, "the re-elected node to serve", func() bool {
		var ok bool
		tc.srvs[a].Do(func(e *engine.Engine) { ok = e.IsLeader() })
		return ok
	})
	if v, err := tc.client(a).Get(ctx, "k").Result(); err != nil || v != "written by the other leader" {
		t.Fatalf("GET k on the re-elected leader: %q, %v", v, err)
	}
}
