package replication

import (
	"strconv"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
)

// The node as engine.Cluster and engine.ClusterAdmin. These methods
// run on the command goroutine and read Raft's non-blocking accessors.
// The client addresses they give are what --peers and this node's own
// say: the engine's view (engine.Engine.Cluster) takes them from its
// member registry where it has them.

var (
	_ engine.Cluster      = (*Node)(nil)
	_ engine.ClusterAdmin = (*Node)(nil)
	_ engine.Replicator   = (*Node)(nil)
	_ engine.LagReporter  = (*Node)(nil)
)

// Self is this node.
func (n *Node) Self() engine.Node {
	for _, m := range n.Nodes() {
		if m.Self {
			return m
		}
	}
	return engine.Node{ID: n.cfg.NodeID, RaftAddr: n.cfg.RaftAdvertise, ClientAddr: n.cfg.ClientAdvertise, Self: true}
}

// Leader is the current leader, if known.
func (n *Node) Leader() (engine.Node, bool) {
	if n.raft == nil || n.removed.Load() {
		return engine.Node{}, false
	}
	addr, id := n.raft.LeaderWithID()
	if id == "" {
		return engine.Node{}, false
	}
	for _, m := range n.Nodes() {
		if m.ID == string(id) {
			return m, true
		}
	}
	return engine.Node{ID: string(id), RaftAddr: string(addr), ClientAddr: n.peerAddr(string(id)), Leader: true}, true
}

// Nodes are the members of the latest Raft configuration, by ID, without
// their replication lag (ReplLagMs -1), which costs a log read per member
// behind: MOVED replies and CLUSTER SLOTS read Nodes on every call.
func (n *Node) Nodes() []engine.Node { return n.nodes(false) }

// NodesWithLag is Nodes with every known member's replication lag
// (engine.LagReporter: INFO replication, /metrics, the status page).
func (n *Node) NodesWithLag() []engine.Node { return n.nodes(true) }

func (n *Node) nodes(withLag bool) []engine.Node {
	if n.raft == nil {
		return nil
	}
	conf := n.raft.GetConfiguration().Configuration()
	_, leader := n.raft.LeaderWithID()
	self := n.raft.State()
	now := n.cfg.Clock.Now().UnixMilli()
	commit := n.raft.CommitIndex()
	out := make([]engine.Node, 0, len(conf.Servers))
	for _, s := range conf.Servers {
		m := engine.Node{
			ID:         string(s.ID),
			RaftAddr:   string(s.Address),
			ClientAddr: n.peerAddr(string(s.ID)),
			Voter:      s.Suffrage == raft.Voter,
			Leader:     s.ID == leader,
			Self:       string(s.ID) == n.cfg.NodeID,
			LagMs:      -1,
			ReplLagMs:  -1,
		}
		if a, ok := n.acks[m.ID]; ok && !m.Self && self == raft.Leader {
			m.MatchIndex, m.AppliedIndex = a.match, a.applied
			m.LagMs = contactMs(a.at)
			if withLag {
				m.ReplLagMs = n.lagMs(a.applied, commit, now)
			}
			m.Progress = true
		}
		if m.Leader && !m.Self {
			// A follower hears from the leader, not from its peers.
			m.LagMs = contactMs(n.raft.LastContact())
		}
		if m.Self {
			if m.ClientAddr == "" {
				m.ClientAddr = n.cfg.ClientAdvertise
			}
			m.MatchIndex = n.raft.LastIndex()
			m.AppliedIndex = n.appliedIndex()
			m.LagMs = 0
			if withLag {
				m.ReplLagMs = n.lagMs(m.AppliedIndex, commit, now)
			}
			m.Progress = true
		}
		out = append(out, m)
	}
	sortNodes(out)
	return out
}

// Status is this node's Raft progress.
func (n *Node) Status() engine.ClusterStatus {
	if n.raft == nil {
		return engine.ClusterStatus{State: "shutdown"}
	}
	st := engine.ClusterStatus{
		ClusterID:    n.ClusterID(),
		Term:         n.raft.CurrentTerm(),
		LastLogIndex: n.raft.LastIndex(),
		CommitIndex:  n.raft.CommitIndex(),
		AppliedIndex: n.appliedIndex(),
		Durable:      n.cfg.DataDir != "" && !n.cfg.NoSync,
	}
	if n.logs != nil {
		st.FirstIndex, _ = n.logs.FirstIndex()
	}
	// Raft tells the snapshot's index only through Stats, which builds a
	// whole map: read it at most once a second.
	if time.Since(n.snapAt) > time.Second {
		if v, err := strconv.ParseUint(n.raft.Stats()["last_snapshot_index"], 10, 64); err == nil {
			n.snapIndex = v
		}
		n.snapAt = time.Now()
	}
	st.LastSnapshotIndex = n.snapIndex
	switch state := n.raft.State(); {
	case n.removed.Load():
		st.State = "removed"
	case state == raft.Leader:
		st.State = "leader"
	case state == raft.Candidate:
		st.State = "candidate"
	case state == raft.Follower:
		st.State = "follower"
	default:
		st.State = "shutdown"
	}
	return st
}

// clientAddr is member id's client address: e's member registry's, or
// until the registry has it (a new cluster's first entries are still
// being applied), the one --peers gave (command goroutine).
func (n *Node) clientAddr(e *engine.Engine, id string) string {
	if a := e.MemberAddr(id); a != "" {
		return a
	}
	return n.peerAddr(id)
}

// peerAddr is the client address --peers gave member id, "" for none.
func (n *Node) peerAddr(id string) string {
	for _, p := range n.cfg.Peers {
		if p.ID == id {
			return p.ClientAddr
		}
	}
	return ""
}
