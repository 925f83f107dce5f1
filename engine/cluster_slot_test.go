package engine

import (
	"testing"

	"github.com/lockkv/lockkv/config"
)

func TestKeySlot(t *testing.T) {
	for key, want := range map[string]int{
		"foo":           12182, // redis-cli CLUSTER KEYSLOT foo
		"bar":           5061,
		"{user1000}.a":  3443,
		"{user1000}.b":  3443,
		"user1000":      3443,
		"foo{}{bar}":    8363, // an empty tag: the whole key
		"foo{{bar}}zap": 4015, // the tag is "{bar"
		"foo{bar}{zap}": 5061, // the first tag only
		"":              0,
		"{":             KeySlot([]byte("{")),
	} {
		if got := KeySlot([]byte(key)); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
	if crc16([]byte("123456789")) != 0x31C3 {
		t.Errorf("crc16 check value = %#x", crc16([]byte("123456789")))
	}
}

// fakeCluster is a Cluster whose state a test sets directly.
type fakeCluster struct {
	self   string
	leader string // "" while none is known
	nodes  []Node
	status ClusterStatus
}

func (f *fakeCluster) mark(n Node) Node {
	n.Self = n.ID == f.self
	n.Leader = n.ID == f.leader
	return n
}

func (f *fakeCluster) Self() Node {
	for _, n := range f.nodes {
		if n.ID == f.self {
			return f.mark(n)
		}
	}
	panic("no self")
}

func (f *fakeCluster) Leader() (Node, bool) {
	for _, n := range f.nodes {
		if n.ID == f.leader {
			return f.mark(n), true
		}
	}
	return Node{}, false
}

func (f *fakeCluster) Nodes() []Node {
	out := make([]Node, len(f.nodes))
	for i, n := range f.nodes {
		out[i] = f.mark(n)
	}
	return out
}

func (f *fakeCluster) Status() ClusterStatus { return f.status }

// newFakeCluster is three voters n1 (leader), n2, n3, seen from self.
func newFakeCluster(self string) *fakeCluster {
	return &fakeCluster{
		self:   self,
		leader: "n1",
		nodes: []Node{
			{ID: "n1", RaftAddr: "10.0.0.1:7001", ClientAddr: "10.0.0.1:6001", Voter: true, MatchIndex: 42, AppliedIndex: 42, LagMs: 0, ReplLagMs: 0, Progress: true},
			{ID: "n2", RaftAddr: "10.0.0.2:7002", ClientAddr: "10.0.0.2:6002", Voter: true, MatchIndex: 40, AppliedIndex: 39, LagMs: 120, ReplLagMs: 35, Progress: true},
			{ID: "n3", RaftAddr: "10.0.0.3:7003", ClientAddr: "10.0.0.3:6003", Voter: true, MatchIndex: 41, AppliedIndex: 41, LagMs: 2500, ReplLagMs: 0, Progress: true},
		},
		status: ClusterStatus{ClusterID: "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e", State: "leader", Term: 7, LastLogIndex: 42, CommitIndex: 42, AppliedIndex: 42, FirstIndex: 1, LastSnapshotIndex: 0},
	}
}

func TestRedirect(t *testing.T) {
	te := newTestEngine(t)
	fc := newFakeCluster("n2")
	te.e.cluster = &clusterView{Cluster: fc, e: te.e}
	cl, _ := te.client()
	c := &Ctx{E: te.e, C: cl}
	cmd := func(args ...string) (*Spec, [][]byte) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		spec := Lookup(a[0])
		if len(spec.Sub) > 0 {
			spec = spec.Subcommand(a[1])
		}
		return spec, a
	}
	check := func(want string, args ...string) {
		t.Helper()
		if got := c.Redirect(cmd(args...)); got != want {
			t.Errorf("%v: redirect = %q, want %q", args, got, want)
		}
	}
	// A follower: keyed commands go to the leader, with the first key's slot.
	check("MOVED 12182 10.0.0.1:6001", "SET", "foo", "v")
	check("MOVED 12182 10.0.0.1:6001", "GET", "foo")
	check("MOVED 5061 10.0.0.1:6001", "MGET", "bar", "foo")
	check("MOVED 12182 10.0.0.1:6001", "EVAL", "return 1", "1", "{foo}1")
	check("MOVED 12182 10.0.0.1:6001", "OBJECT", "ENCODING", "foo")
	// Keyless commands run where they are sent.
	check("", "PING")
	check("", "EVAL", "return 1", "0")
	check("", "CLUSTER", "SLOTS")
	check("", "PUBLISH", "ch", "m")
	// READONLY lets reads run on the follower; writes still move.
	cl.Readonly = true
	check("", "GET", "foo")
	check("", "HGETALL", "foo")
	check("MOVED 12182 10.0.0.1:6001", "SET", "foo", "v")
	cl.Readonly = false
	// So does the stale read mode; lease reads still go to the leader.
	te.e.Config.ReadMode = config.ReadStale
	check("", "GET", "foo")
	check("MOVED 12182 10.0.0.1:6001", "INCR", "foo")
	te.e.Config.ReadMode = config.ReadLease
	check("MOVED 12182 10.0.0.1:6001", "GET", "foo")
	te.e.Config.ReadMode = config.ReadLinearizable
	// A leader without a client address cannot be named.
	fc.nodes[0].ClientAddr = ""
	check(ErrClusterDown, "GET", "foo")
	// The leader runs everything.
	fc.self = "n1"
	check("", "SET", "foo", "v")
	check("", "GET", "foo")
}
