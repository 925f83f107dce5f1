package clustertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// TestHarness checks the harness itself: the proxies really cut a node
// off both ways (the cut leader never hears of its successor until healed),
// and nodes restart on their data directories.
func TestHarness(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	l := c.Leader()
	if err := c.client(l).Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c.Partition(l)
	nl := c.Leader()
	if nl == l {
		t.Fatalf("the cut node %s is still the leader", c.nodes[l].id)
	}
	// Raft traffic from the new leader never reaches the cut node.
	stop := time.Now().Add(time.Second)
	for time.Now().Before(stop) {
		m, err := c.info(l)
		if err != nil {
			t.Fatal(err)
		}
		if m["raft_leader_id"] == c.nodes[nl].id {
			t.Fatalf("the cut node %s follows %s", c.nodes[l].id, c.nodes[nl].id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Heal()
	testutil.Eventually(t, 20*time.Second, func() error { // until the healed node follows the new leader
		m, err := c.info(l)
		if err != nil {
			return err
		}
		if m["raft_leader_id"] != c.nodes[nl].id {
			return fmt.Errorf("%s names leader %q", c.nodes[l].id, m["raft_leader_id"])
		}
		return nil
	})
	c.Kill(nl)
	if c.Running(nl) {
		t.Fatal("killed node still running")
	}
	if l2 := c.Leader(); l2 == nl {
		t.Fatal("killed node leads")
	}
	c.Restart(nl)
	if got := c.waitConverged(20 * time.Second); got != "\"a\" string 1 expires -1\n" {
		t.Fatalf("keyspace after restart:\n%s", got)
	}
}
