// Package enginetest holds the fakes every test that runs an engine in
// process uses (the engine's own tests, package engine_test, with
// engine/export_test.go for the internals they read; the command
// families, packages admin and commands; conformance): a fixed
// clock, a connection that records what it is sent, an engine with
// helpers to run commands as clients, a cluster whose state the test
// sets, and a replicator that collects proposed ops. It imports the
// engine only; a test binary gets the command families by importing
// their packages.
package enginetest

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
)

// Clock is a clock that stands still until told to move.
type Clock struct{ T time.Time }

// Now returns c.T.
func (c *Clock) Now() time.Time { return c.T }

// Advance moves c forward by d.
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }

// Conn collects what the engine delivers to one client (engine.Conn).
type Conn struct{ Out []byte }

func (c *Conn) Deliver(b []byte)                { c.Out = append(c.Out, b...) }
func (c *Conn) Close()                          {}
func (c *Conn) Blocked(bool)                    {}
func (c *Conn) Abort()                          {}
func (c *Conn) SetAuthenticated(bool)           {}
func (c *Conn) Pending() int64                  { return 0 }
func (c *Conn) QueryBuffer() (used, free int64) { return 0, 0 }
func (c *Conn) RemoteAddr() string              { return "127.0.0.1:1" }
func (c *Conn) LocalAddr() string               { return "127.0.0.1:2" }

// Engine is an engine on a fixed clock with helpers to run commands as
// connected clients and read what they were sent.
type Engine struct {
	T     testing.TB
	E     *engine.Engine
	Clock *Clock
}

// New returns an engine with the default settings on a clock fixed at
// Unix millisecond 1,000,000.
func New(t testing.TB) *Engine { return NewWith(t, engine.Options{}) }

// NewCluster is New for a node of cluster c: the discovery emulation
// (CLUSTER, SENTINEL, MOVED), not replicated.
func NewCluster(t testing.TB, c engine.Cluster) *Engine {
	return NewWith(t, engine.Options{Replication: &engine.Replication{Cluster: c}})
}

// NewWith is New with options; without a Clock, the engine gets one
// fixed at Unix millisecond 1,000,000 (Engine.Clock is nil otherwise).
func NewWith(t testing.TB, o engine.Options) *Engine {
	t.Helper()
	te := &Engine{T: t}
	if o.Clock == nil {
		te.Clock = &Clock{T: time.UnixMilli(1_000_000)}
		o.Clock = te.Clock
	}
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	te.E = e
	return te
}

// Client connects a client.
func (te *Engine) Client() (*engine.Client, *Conn) {
	conn := &Conn{}
	return te.E.NewClient(conn), conn
}

// Advance moves the clock forward by d.
func (te *Engine) Advance(d time.Duration) { te.Clock.Advance(d) }

// Do runs a command as cl and returns everything cl's connection was sent
// since the last call.
func (te *Engine) Do(cl *engine.Client, conn *Conn, args ...string) string {
	te.T.Helper()
	a := make([][]byte, len(args))
	for i, s := range args {
		a[i] = []byte(s)
	}
	te.E.Call(cl, a)
	te.E.FlushOutputs()
	out := string(conn.Out)
	conn.Out = conn.Out[:0]
	return out
}

// Expect runs a command as cl and fails the test unless cl was sent want.
func (te *Engine) Expect(cl *engine.Client, conn *Conn, want string, args ...string) {
	te.T.Helper()
	if got := te.Do(cl, conn, args...); got != want {
		te.T.Fatalf("%q: got %q, want %q", args, got, want)
	}
}

// FakeCluster is an engine.Cluster whose state a test sets directly.
type FakeCluster struct {
	SelfID   string
	LeaderID string // "" while none is known
	Members  []engine.Node
	State    engine.ClusterStatus
}

func (f *FakeCluster) mark(n engine.Node) engine.Node {
	n.Self = n.ID == f.SelfID
	n.Leader = n.ID == f.LeaderID
	return n
}

// Self is the member SelfID names.
func (f *FakeCluster) Self() engine.Node {
	for _, n := range f.Members {
		if n.ID == f.SelfID {
			return f.mark(n)
		}
	}
	panic("no self")
}

// Leader is the member LeaderID names.
func (f *FakeCluster) Leader() (engine.Node, bool) {
	for _, n := range f.Members {
		if n.ID == f.LeaderID {
			return f.mark(n), true
		}
	}
	return engine.Node{}, false
}

// Nodes are the members.
func (f *FakeCluster) Nodes() []engine.Node {
	out := make([]engine.Node, len(f.Members))
	for i, n := range f.Members {
		out[i] = f.mark(n)
	}
	return out
}

// Status is State.
func (f *FakeCluster) Status() engine.ClusterStatus { return f.State }

// NewFakeCluster is three voters n1 (leader), n2, n3, seen from self.
func NewFakeCluster(self string) *FakeCluster {
	return &FakeCluster{
		SelfID:   self,
		LeaderID: "n1",
		Members: []engine.Node{
			{ID: "n1", RaftAddr: "10.0.0.1:7001", ClientAddr: "10.0.0.1:6001", Voter: true, MatchIndex: 42, AppliedIndex: 42, LagMs: 0, ReplLagMs: 0, Progress: true},
			{ID: "n2", RaftAddr: "10.0.0.2:7002", ClientAddr: "10.0.0.2:6002", Voter: true, MatchIndex: 40, AppliedIndex: 39, LagMs: 120, ReplLagMs: 35, Progress: true},
			{ID: "n3", RaftAddr: "10.0.0.3:7003", ClientAddr: "10.0.0.3:6003", Voter: true, MatchIndex: 41, AppliedIndex: 41, LagMs: 2500, ReplLagMs: 0, Progress: true},
		},
		State: engine.ClusterStatus{ClusterID: "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e", State: "leader", Term: 7, LastLogIndex: 42, CommitIndex: 42, AppliedIndex: 42, FirstIndex: 1, LastSnapshotIndex: 0},
	}
}

// StubReplicator collects proposed ops (engine.Replicator).
type StubReplicator struct{ Ops []engine.Op }

func (r *StubReplicator) Propose(op engine.Op)         { r.Ops = append(r.Ops, op) }
func (r *StubReplicator) Flush()                       {}
func (r *StubReplicator) ConfirmLeadership(gen uint64) {}

var (
	_ engine.Conn       = (*Conn)(nil)
	_ engine.Cluster    = (*FakeCluster)(nil)
	_ engine.Replicator = (*StubReplicator)(nil)
)
