package replication

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
)

// removeNode asks the leader of c to remove id and waits for the outcome.
func (c *testCluster) removeNode(id string) error {
	c.t.Helper()
	l := c.nodes[c.leader()]
	done := make(chan error, 1)
	l.run(func(*engine.Engine) { l.node.RemoveNode(id, func(err error) { done <- err }) })
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		return fmt.Errorf("removing %s: no outcome in 20s", id)
	}
}

// TestQuorumChecks: the strict reconfiguration rules, on configurations
// whose members answered this leader (or not) as set here.
func TestQuorumChecks(t *testing.T) {
	now := time.Now()
	n := &Node{cfg: Config{NodeID: "n1", ElectionTimeout: time.Second}, progress: &progressTransport{peers: map[raft.ServerID]peerProgress{}}}
	conf := func(ids ...string) []raft.Server {
		var out []raft.Server
		for _, id := range ids {
			s := raft.Server{ID: raft.ServerID(strings.TrimSuffix(id, "-")), Suffrage: raft.Voter}
			if strings.HasSuffix(id, "-") {
				s.Suffrage = raft.Nonvoter
			}
			out = append(out, s)
		}
		return out
	}
	heard := func(up ...string) {
		clear(n.progress.peers)
		for _, id := range up {
			n.progress.peers[raft.ServerID(id)] = peerProgress{contact: now}
		}
		n.progress.peers["old"] = peerProgress{contact: now.Add(-time.Minute)}
	}
	for _, tc := range []struct {
		conf   []raft.Server
		up     []string // besides n1, the leader
		add    string   // "" if adding a voter is allowed
		remove map[string]string
	}{
		// One voter: it may grow, not shrink.
		{conf: conf("n1"), remove: map[string]string{"n1": "cannot remove n1: it is the cluster's only voter"}},
		// Three, all up: anything.
		{conf: conf("n1", "n2", "n3"), up: []string{"n2", "n3"}, remove: map[string]string{"n1": "", "n2": "", "n3": ""}},
		// Three, n3 down: remove n3 only; no voter added.
		{conf: conf("n1", "n2", "n3"), up: []string{"n2"},
			add: "adding a voter now could leave the cluster without a quorum: 2 of its 3 voters answer (n3 does not), and 4 voters need 3",
			remove: map[string]string{"n3": "",
				"n2": "removing n2 could leave the cluster without a quorum: 1 of the 2 voters left answer (n3 does not), and 2 need 2",
				"n1": "removing n1 could leave the cluster without a quorum: 1 of the 2 voters left answer (n3 does not), and 2 need 2"}},
		// Five, two down: no voter added (3 answering are no quorum of
		// 6); the dead may be removed, not the living.
		{conf: conf("n1", "n2", "n3", "n4", "n5"), up: []string{"n2", "n3"},
			add:    "adding a voter now could leave the cluster without a quorum: 3 of its 5 voters answer (n4, n5 do not), and 6 voters need 4",
			remove: map[string]string{"n4": "", "n5": "", "n2": "removing n2 could leave the cluster without a quorum: 2 of the 4 voters left answer (n4, n5 do not), and 4 need 3"}},
		// Four, one down: a voter may be added (3 answering are a quorum
		// of 5).
		{conf: conf("n1", "n2", "n3", "n4"), up: []string{"n2", "n3"}, remove: map[string]string{"n4": "", "n2": ""}},
		// Non-voters do not count, and a dead one does not matter.
		{conf: conf("n1", "n2", "n3", "n4-"), up: []string{"n2", "n3"}, remove: map[string]string{"n2": ""}},
	} {
		heard(tc.up...)
		name := fmt.Sprintf("%v up %v", tc.conf, tc.up)
		err := n.checkAddVoter(tc.conf)
		if got := fmt.Sprint(err); (tc.add == "" && err != nil) || (tc.add != "" && !strings.HasPrefix(got, tc.add)) {
			t.Errorf("%s: add: %v, want %q", name, err, tc.add)
		}
		for id, want := range tc.remove {
			err := n.checkRemoveVoter(tc.conf, id)
			if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && !strings.HasPrefix(got, want)) {
				t.Errorf("%s: remove %s: %v, want %q", name, id, err, want)
			}
		}
	}
}

// TestAddFailsWithoutProgress: a node that passes the handshake but never
// takes a log entry (its Raft port closes every connection after the
// handshake) is added as a non-voter, makes no progress for
// CatchUpTimeout, and is removed again: the add fails, naming why, and
// the configuration is as before.
func TestAddFailsWithoutProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	c := newTestCluster(t, 1, func(i int, cfg *Config) { cfg.CatchUpTimeout = time.Second })
	c.set("k", "v")
	l := c.nodes[0]

	addr := testnet.FreeAddr(t)
	sec := &raftSecurity{}
	auth := &handshakeAuth{local: func() hello { return hello{nodeID: "mute", addr: addr} }}
	sl, err := newStreamLayer(addr, nil, sec, auth, newRefusalLog(l.node.log))
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	go func() {
		for {
			conn, err := sl.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	mute := &testNode{cfg: Config{NodeID: "mute", RaftAddr: addr}}
	err = c.addNode(mute, true)
	if want := "mute did not catch up: no progress for 1s (its last log index 0"; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; it was removed again") {
		t.Fatalf("adding a node that takes nothing: %v, want %q...", err, want)
	}
	if conf := l.node.config(); len(conf) != 1 {
		t.Fatalf("configuration after the failed add: %+v", conf)
	}
	c.set("k", "v2") // the cluster works on
}

// TestRemovedNodeStaysOut: a removed follower (with a data directory)
// stops Raft after the grace period (its progress reports reach no leader
// in this package's clusters, so the leader cannot tell it sooner), and
// its data directory refuses to start again as a member.
func TestRemovedNodeStaysOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	base := t.TempDir()
	dir := func(cfg *Config) { cfg.DataDir = filepath.Join(base, cfg.NodeID) }
	c := newTestCluster(t, 3, func(i int, cfg *Config) { dir(cfg) })
	c.set("k", "v")
	// Its election timeout sets how long it waits before taking itself
	// as removed.
	cfg4 := Config{NodeID: "n4", RaftAddr: testnet.FreeAddr(t), HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond}
	dir(&cfg4)
	n4 := startNode(t, cfg4)
	if err := c.addNode(n4, true); err != nil {
		t.Fatal(err)
	}
	if err := c.removeNode("n4"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n4.node.Removed():
	case <-time.After(20 * time.Second):
		t.Fatalf("n4 does not stop:\n%s", n4.logs)
	}
	if n := n4.logs.Count(RemovedMsg); n != 1 {
		t.Errorf("n4 logged its removal %d times", n)
	}
	if st := n4.node.Status().State; st != "removed" {
		t.Errorf("n4's state %q", st)
	}
	if _, ok := n4.node.Leader(); ok {
		t.Error("a removed node names a leader")
	}
	n4.stop()
	n, err := New(cfg4, func(func(*engine.Engine)) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	err = n.Open()
	if want := "replication: this node (n4) was removed from cluster " + c.nodes[0].node.ClusterID(); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("opening a removed node's data directory: %v, want %q...", err, want)
	}
	n.Shutdown()
	c.set("k", "v2")
}
