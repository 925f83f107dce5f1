package lockkv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/store"
)

// TestClusterAppliedIndexIsTheKeyspaces: the applied index a node
// reports (Status, INFO's raft_applied_index, the metrics) is that of the
// last entry its keyspace holds. Raft's own counts an entry once it is
// queued for the command goroutine, so a follower still applying a long
// script reported the leader's index with the old keyspace, and a test
// comparing the nodes' digests at the same "applied" index saw them
// differ (TestRandomDistributionCluster, when leadership was lost under
// load and no write followed). Here a follower's command goroutine is
// held while the leader commits a write; then leadership moves, which
// ends the log with entries the keyspace never sees (the new term's
// no-op, the barrier), and every node must still report everything
// committed as applied.
func TestClusterAppliedIndexIsTheKeyspaces(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	l := tc.leader()
	f := (l + 1) % 3
	lc := tc.client(l)
	if err := lc.Set(ctx, "k", "v0", 0).Err(); err != nil {
		t.Fatal(err)
	}
	value := func(i int) string {
		var v string
		tc.srvs[i].Do(func(e *engine.Engine) {
			if ent := e.DBs[0].Peek("k"); ent != nil {
				v = string(ent.Value.(*store.String).B)
			}
		})
		return v
	}
	waitFor(t, "the follower to hold v0", func() bool { return value(f) == "v0" })

	held, release := make(chan struct{}), make(chan struct{})
	go tc.srvs[f].Do(func(*engine.Engine) {
		close(held)
		<-release
	})
	<-held
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	if err := lc.Set(ctx, "k", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	var target uint64
	tc.srvs[l].Do(func(e *engine.Engine) { target = e.AppliedIndex() })
	// Raft on the follower hands the entry to the held command goroutine.
	raftF := tc.srvs[f].Node().Raft()
	waitFor(t, "Raft on the follower to queue the write", func() bool { return raftF.AppliedIndex() >= target })
	// The command goroutine is held: nothing else reads the node's state.
	if got := tc.srvs[f].Node().Status().AppliedIndex; got >= target {
		t.Fatalf("the follower reports index %d applied, the write at %d included, while its keyspace holds k=%q", got, target, "v0")
	}
	close(release)
	released = true
	waitFor(t, "the follower to hold v1", func() bool { return value(f) == "v1" })

	// Leadership moves: the log ends with the new term's no-op and the
	// new leader's barrier, which only Raft sees.
	if err := tc.srvs[l].Node().Raft().LeadershipTransfer().Error(); err != nil {
		t.Fatalf("transfer: %v", err)
	}
	nl := tc.leader()
	testutil.Eventually(t, 10*time.Second, func() error {
		commit := tc.srvs[nl].Node().Raft().CommitIndex()
		for i, s := range tc.srvs {
			var st engine.ClusterStatus
			s.Do(func(e *engine.Engine) { st = e.Cluster().Status() })
			if st.AppliedIndex != commit {
				return fmt.Errorf("n%d reports %d applied, the leader's commit index is %d", i+1, st.AppliedIndex, commit)
			}
		}
		return nil
	})
}
