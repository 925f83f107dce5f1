package replication

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
)

// addNode asks the leader of c to add tn (voter or not) and waits for the
// outcome.
func (c *testCluster) addNode(tn *testNode, voter bool) error {
	c.t.Helper()
	l := c.nodes[c.leader()]
	done := make(chan error, 1)
	l.run(func(*engine.Engine) {
		l.node.AddNode(tn.cfg.NodeID, tn.cfg.RaftAddr, "", voter, func(err error) { done <- err })
	})
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		return fmt.Errorf("adding %s: no outcome in 20s", tn.cfg.NodeID)
	}
}

// TestClusterIDAgreedAndKept: a new cluster's first leader makes up its
// ID and every member learns it from the log; a member keeps it in its
// stable store and knows it on restart before hearing from anyone.
func TestClusterIDAgreedAndKept(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	base := t.TempDir()
	c := newTestCluster(t, 3, func(i int, cfg *Config) {
		cfg.DataDir = filepath.Join(base, cfg.NodeID)
		cfg.Password = "pw"
	})
	c.set("k", "v")
	c.converged()
	id := c.nodes[0].node.ClusterID()
	if len(id) != 2*idSize {
		t.Fatalf("cluster ID %q", id)
	}

	f := (c.leader() + 1) % 3
	cfg := c.nodes[f].cfg
	c.nodes[f].stop()
	// Opened, not started: no peer has spoken to it yet.
	n, err := New(cfg, func(func(*engine.Engine)) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Open(); err != nil {
		t.Fatal(err)
	}
	if got := n.ClusterID(); got != id {
		t.Errorf("after a restart, before any contact: cluster ID %q, want %q", got, id)
	}
	if !n.hasState.Load() {
		t.Error("a restarted member says it has no state")
	}
	n.Shutdown()
	c.nodes[f] = startNode(t, cfg)
	c.set("k2", "v2")
	c.converged()
}

// TestClusterIDNewMemberLearns: a node started with no state knows no ID
// (and says so in its hello); added to a cluster, it learns the cluster's
// from the log, or from a snapshot when the log was compacted.
func TestClusterIDNewMemberLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	c := newTestCluster(t, 3, func(i int, cfg *Config) {
		cfg.RaftSecret = "s3cret"
		cfg.TrailingLogs = 1
		cfg.SnapshotThreshold = 1 << 20 // snapshots only when asked
	})
	c.set("k", "v")
	c.converged()
	id := c.nodes[0].node.ClusterID()

	// probe is what a leader about to add a node can learn of it.
	probe := func(tn *testNode) PeerInfo {
		t.Helper()
		conn, info, err := DialRaft(Config{NodeID: "probe", RaftAdvertise: "127.0.0.1:9", RaftSecret: "s3cret"}, tn.cfg.RaftAddr, 5*time.Second)
		if err != nil {
			t.Fatalf("probe of %s: %v", tn.cfg.NodeID, err)
		}
		conn.Close()
		return info
	}
	newNode := func(name string) *testNode {
		tn := startNode(t, Config{NodeID: name, RaftAddr: testnet.FreeAddr(t), RaftSecret: "s3cret"})
		if got := tn.node.ClusterID(); got != "" {
			t.Fatalf("%s: a node with no state knows cluster ID %q", name, got)
		}
		if info, want := probe(tn), (PeerInfo{NodeID: name, RaftAddr: tn.cfg.RaftAddr}); info != want {
			t.Fatalf("probe of a node with no state: %+v, want %+v", info, want)
		}
		return tn
	}
	learns := func(tn *testNode) {
		t.Helper()
		testutil.Eventually(t, 20*time.Second, func() error {
			if got := tn.node.ClusterID(); got != id {
				return fmt.Errorf("%s: cluster ID %q, want %q", tn.cfg.NodeID, got, id)
			}
			if got := tn.get("k"); got != "v" {
				return fmt.Errorf("%s: k = %q", tn.cfg.NodeID, got)
			}
			return nil
		})
		if info, want := probe(tn), (PeerInfo{NodeID: tn.cfg.NodeID, RaftAddr: tn.cfg.RaftAddr, ClusterID: id, HasState: true}); info != want {
			t.Errorf("probe of a member: %+v, want %+v", info, want)
		}
	}

	// From the log.
	n4 := newNode("n4")
	if err := c.addNode(n4, true); err != nil {
		t.Fatal(err)
	}
	learns(n4)
	if s := n4.node.Raft().Stats()["last_snapshot_index"]; s != "0" {
		t.Errorf("n4 got a snapshot (index %s); the log path is untested", s)
	}
	c.nodes = append(c.nodes, n4)

	// From a snapshot: the leader compacts its log past the start.
	c.set("k3", "v3")
	l := c.nodes[c.leader()]
	if err := l.node.Raft().Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	c.set("k4", "v4")
	n5 := newNode("n5")
	if err := c.addNode(n5, false); err != nil {
		t.Fatal(err)
	}
	learns(n5)
	if s, _ := strconv.Atoi(n5.node.Raft().Stats()["last_snapshot_index"]); s == 0 {
		t.Errorf("n5 got no snapshot; the snapshot path is untested")
	}
	c.nodes = append(c.nodes, n5)
	c.converged()
}

// TestClusterIDMismatchRefused: the leader of one cluster is asked to add
// a node of another (same secret, so only the IDs tell them apart).
// AddNode refuses it, naming both IDs, and the configuration is
// unchanged. Forced into the configuration behind AddNode's back (Raft's
// own AddNonvoter), its Raft connections are refused both ways, each side
// logs that once however often Raft retries, and the other cluster's node
// is untouched.
func TestClusterIDMismatchRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	a := newNamedCluster(t, "a", 1, func(i int, cfg *Config) { cfg.Password = "pw" })
	b := newNamedCluster(t, "b", 1, func(i int, cfg *Config) { cfg.Password = "pw" })
	a.set("k", "a")
	b.set("k", "b")
	a.converged()
	b.converged()
	a1, b1 := a.nodes[0], b.nodes[0]
	if a1.node.ClusterID() == b1.node.ClusterID() {
		t.Fatal("two clusters have one ID")
	}
	bState, bDigest := b1.raftState(), b1.digest()

	err := a.addNode(b1, false)
	if want := "refusing to add b1: it belongs to another cluster (its cluster ID " + b1.node.ClusterID() + ", this cluster's " + a1.node.ClusterID() + ")"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("AddNode of another cluster's node: %v, want %q...", err, want)
	}
	if servers := a1.node.config(); len(servers) != 1 {
		t.Fatalf("a's configuration after the refusal: %+v", servers)
	}
	// A non-voter: a keeps its quorum.
	if err := a1.node.Raft().AddNonvoter(raft.ServerID(b1.cfg.NodeID), raft.ServerAddress(b1.cfg.RaftAddr), 0, 10*time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	// The transport's refusals (AddNode's was logged as a failed change).
	const msg = "belongs to another cluster (its cluster ID %s, ours"
	testutil.Eventually(t, 20*time.Second, func() error {
		if n := a1.node.refusals.count.Load(); n < 3 {
			return fmt.Errorf("a1 refused %d times so far", n)
		}
		if n := b1.node.refusals.count.Load(); n < 3 {
			return fmt.Errorf("b1 refused %d times so far", n)
		}
		return nil
	})
	if n := a1.logs.Count(fmt.Sprintf(msg, b1.node.ClusterID())); n != 1 {
		t.Errorf("a1 logged %d refusals for %d attempts, want 1:\n%s", n, a1.node.refusals.count.Load(), a1.logs)
	}
	if n := b1.logs.Count(fmt.Sprintf(msg, a1.node.ClusterID())); n != 1 {
		t.Errorf("b1 logged %d refusals for %d attempts, want 1:\n%s", n, b1.node.refusals.count.Load(), b1.logs)
	}
	if got := b1.get("k"); got != "b" {
		t.Errorf("b1's k = %q", got)
	}
	if st := b1.raftState(); st != bState {
		t.Errorf("b1's Raft state changed: %+v, before %+v", st, bState)
	}
	if d := b1.digest(); d != bDigest {
		t.Error("b1's keyspace changed")
	}
	a.set("k", "a2") // a still works
}
