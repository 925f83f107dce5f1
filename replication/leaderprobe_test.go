package replication

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// TestLeaderProbe: with heartbeat and election timeouts of a minute, the
// leader's node stops (its Raft port closes). The followers find its
// address refusing connections, lower Raft's timeouts to the leader lease
// and elect a new leader; once it is known their timeouts are the
// configured ones again.
func TestLeaderProbe(t *testing.T) {
	const timeout = time.Minute
	c := newTestCluster(t, 3, func(i int, cfg *Config) {
		cfg.HeartbeatTimeout, cfg.ElectionTimeout = timeout, timeout
	})
	// Nobody would stand for election within a minute: n1 does at once,
	// with the lowest timeouts Raft takes, then goes back to a minute.
	n1 := c.nodes[0].node
	n1.setRaftTimeouts(n1.leaderLease(), n1.leaderLease())
	old := c.leader()
	if !n1.setRaftTimeouts(timeout, timeout) {
		t.Fatal("cannot restore n1's timeouts")
	}
	c.set("k", "v")
	c.nodes[old].stop()
	var survivors []*testNode
	for i, tn := range c.nodes {
		if i != old {
			survivors = append(survivors, tn)
		}
	}
	// The survivors elect a leader long before a minute of silence.
	testutil.Eventually(t, 30*time.Second, func() error {
		for _, tn := range survivors {
			if tn.isLeader() {
				return nil
			}
		}
		return fmt.Errorf("no survivor leads: %+v, %+v", survivors[0].raftState(), survivors[1].raftState())
	})
	probed := 0
	for _, tn := range survivors {
		probed += tn.logs.Count("the leader's Raft address refuses connections")
	}
	if probed == 0 {
		t.Errorf("no survivor logged that the leader's address refuses connections:\n%s\n%s", survivors[0].logs, survivors[1].logs)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		for _, tn := range survivors {
			rc := tn.node.Raft().ReloadableConfig()
			if rc.HeartbeatTimeout != timeout || rc.ElectionTimeout != timeout {
				return fmt.Errorf("%s: Raft timeouts %v and %v, want %v", tn.cfg.NodeID, rc.HeartbeatTimeout, rc.ElectionTimeout, timeout)
			}
		}
		return nil
	})
	// The new leader serves writes.
	c.nodes = survivors
	c.set("k", "w")
}

// TestLeaderProbeLiveLeader: a live leader's address is not taken for
// gone, and the probe's connection leaves no record on the leader.
func TestLeaderProbeLiveLeader(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	l := c.nodes[c.leader()]
	f := c.nodes[(c.leader()+1)%3]
	if f.node.leaderGone(l.cfg.RaftAddr, time.Second) {
		t.Fatalf("%s's live leader %s taken for gone", f.cfg.NodeID, l.cfg.NodeID)
	}
	// A connection closed before the handshake would be logged by the
	// leader's handshake goroutine within moments: none may appear.
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n := l.logs.Count("refused"); n != 0 {
			t.Fatalf("the leader logged %d refusals:\n%s", n, l.logs)
		}
	}
	// Where nothing listens, the address is gone.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if !f.node.leaderGone(addr, time.Second) {
		t.Errorf("%s not taken for gone after its listener closed", addr)
	}
}
