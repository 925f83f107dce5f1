package replication

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/store"
)

// An in-process cluster for this package's tests: each node is a Node with
// its own engine and command goroutine, on real TCP Raft transports (the
// stream layer and handshake under test) on loopback.

type testNode struct {
	t     testing.TB
	cfg   Config
	node  *Node
	eng   *engine.Engine
	logs  *testutil.LogBuffer
	calls chan func()
	quit  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

// run is the node's Runner: fn runs on the node's command goroutine.
func (tn *testNode) run(fn func(e *engine.Engine)) bool {
	done := make(chan struct{})
	select {
	case tn.calls <- func() { fn(tn.eng); close(done) }:
		<-done
		return true
	case <-tn.quit:
		return false
	}
}

// newNodeEngine is the engine of node n, as a server builds it.
func newNodeEngine(n *Node, clock store.Clock) (*engine.Engine, error) {
	return engine.New(engine.Options{Config: config.NewConfig(), Clock: clock, Replication: &engine.Replication{
		Cluster: n, Log: n, Origin: n.Origin(), Admin: n, Transfer: n, Lag: n, Forwarder: n.Forwarder(),
	}})
}

// startNode starts a node configured by cfg (Clock and Logger are set
// here); it stops at the test's end.
func startNode(t testing.TB, cfg Config) *testNode {
	t.Helper()
	tn, err := tryStartNode(t, cfg)
	if err != nil {
		t.Fatalf("start %s: %v", cfg.NodeID, err)
	}
	return tn
}

func tryStartNode(t testing.TB, cfg Config) (*testNode, error) {
	tn := &testNode{t: t, logs: &testutil.LogBuffer{}, calls: make(chan func()), quit: make(chan struct{})}
	cfg.Clock = testutil.SystemClock{}
	cfg.Logger = slog.New(slog.NewTextHandler(tn.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if cfg.ClientAdvertise == "" {
		cfg.ClientAdvertise = "127.0.0.1:1" // never dialled: no --forward, no acks read
	}
	tn.cfg = cfg
	n, err := New(cfg, tn.run)
	if err != nil {
		return nil, err
	}
	tn.node = n
	if tn.eng, err = newNodeEngine(n, testutil.SystemClock{}); err != nil {
		return nil, err
	}
	tn.wg.Add(1)
	go func() {
		defer tn.wg.Done()
		for {
			select {
			case f := <-tn.calls:
				f()
			case <-tn.quit:
				return
			}
		}
	}()
	if err := n.Start(cfg.ClientAdvertise); err != nil {
		tn.stop()
		return nil, err
	}
	t.Cleanup(tn.stop)
	return tn, nil
}

func (tn *testNode) stop() {
	tn.once.Do(func() {
		tn.node.Shutdown()
		close(tn.quit)
		tn.wg.Wait()
	})
}

func (tn *testNode) get(key string) string {
	var v string
	tn.run(func(e *engine.Engine) {
		if ent := e.DBs[0].Peek(key); ent != nil {
			if s, ok := ent.Value.(*store.String); ok {
				v = string(s.B)
			}
		}
	})
	return v
}

func (tn *testNode) digest() string {
	var d string
	tn.run(func(e *engine.Engine) { d = e.Digest() })
	return d
}

func (tn *testNode) isLeader() bool {
	var ok bool
	tn.run(func(e *engine.Engine) { ok = e.IsLeader() })
	return ok
}

// raftState is what a forged RPC would change: the term and who leads.
type raftState struct {
	term              uint64
	leader            string
	lastIndex, lastTm uint64
}

func (tn *testNode) raftState() raftState {
	r := tn.node.Raft()
	_, id := r.LeaderWithID()
	st := r.Stats()
	li, _ := strconv.ParseUint(st["last_log_index"], 10, 64)
	lt, _ := strconv.ParseUint(st["last_log_term"], 10, 64)
	return raftState{term: r.CurrentTerm(), leader: string(id), lastIndex: li, lastTm: lt}
}

type testCluster struct {
	t     testing.TB
	nodes []*testNode
}

// newTestCluster bootstraps n nodes n1, n2, ...; opt configures node i
// further.
func newTestCluster(t testing.TB, n int, opt func(i int, c *Config)) *testCluster {
	t.Helper()
	return newNamedCluster(t, "n", n, opt)
}

// newNamedCluster is newTestCluster with nodes named prefix1, prefix2, ...
func newNamedCluster(t testing.TB, prefix string, n int, opt func(i int, c *Config)) *testCluster {
	t.Helper()
	var peers []Peer
	for i := 0; i < n; i++ {
		peers = append(peers, Peer{ID: fmt.Sprintf("%s%d", prefix, i+1), RaftAddr: testnet.FreeAddr(t)})
	}
	c := &testCluster{t: t}
	for i, p := range peers {
		cfg := Config{NodeID: p.ID, RaftAddr: p.RaftAddr, Bootstrap: true, Peers: peers}
		if opt != nil {
			opt(i, &cfg)
		}
		c.nodes = append(c.nodes, startNode(t, cfg))
	}
	return c
}

// leader waits for a node that leads and serves, and for every node to
// name it.
func (c *testCluster) leader() int {
	c.t.Helper()
	leader := -1
	testutil.Eventually(c.t, 20*time.Second, func() error {
		err := errors.New("no node leads")
	nodes:
		for i, tn := range c.nodes {
			if !tn.isLeader() {
				continue
			}
			for _, o := range c.nodes {
				if l := o.raftState().leader; l != tn.cfg.NodeID {
					err = fmt.Errorf("%s leads, %s names %q", tn.cfg.NodeID, o.cfg.NodeID, l)
					continue nodes
				}
			}
			leader = i
			return nil
		}
		return err
	})
	return leader
}

// set writes key=val through the leader's proposer and waits until every
// node has applied it.
func (c *testCluster) set(key, val string) {
	c.t.Helper()
	l := c.nodes[c.leader()]
	l.node.Propose(engine.Op{Kind: engine.OpCommand, Proto: 2, Args: [][][]byte{{[]byte("SET"), []byte(key), []byte(val)}}})
	l.node.Flush()
	c.waitValue(key, val)
}

// waitValue waits until every node holds key=val.
func (c *testCluster) waitValue(key, val string) {
	c.t.Helper()
	testutil.Eventually(c.t, 10*time.Second, func() error {
		for _, tn := range c.nodes {
			if got := tn.get(key); got != val {
				return fmt.Errorf("%s has %s=%q, want %q", tn.cfg.NodeID, key, got, val)
			}
		}
		return nil
	})
}

// converged waits until every node has applied the same index, holds the
// same keyspace and knows the same leader, term and cluster ID.
func (c *testCluster) converged() {
	c.t.Helper()
	testutil.Eventually(c.t, 10*time.Second, func() error {
		first := c.nodes[0]
		for _, tn := range c.nodes[1:] {
			if a, b := first.node.Raft().AppliedIndex(), tn.node.Raft().AppliedIndex(); a != b {
				return fmt.Errorf("applied index %d on %s, %d on %s", a, first.cfg.NodeID, b, tn.cfg.NodeID)
			}
			if a, b := first.digest(), tn.digest(); a != b {
				return fmt.Errorf("digests differ: %s %s, %s %s", first.cfg.NodeID, a, tn.cfg.NodeID, b)
			}
			if a, b := first.raftState(), tn.raftState(); a.term != b.term || a.leader != b.leader {
				return fmt.Errorf("%s: %+v; %s: %+v", first.cfg.NodeID, a, tn.cfg.NodeID, b)
			}
			if a, b := first.node.ClusterID(), tn.node.ClusterID(); a != b || a == "" {
				return fmt.Errorf("cluster IDs %q on %s, %q on %s", a, first.cfg.NodeID, b, tn.cfg.NodeID)
			}
		}
		return nil
	})
}
