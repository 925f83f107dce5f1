package commands

// Cluster is what the engine knows about the Raft cluster the server
// belongs to. It is nil on a standalone server (no replication): then
// CLUSTER answers "ERR This instance has cluster support disabled" and
// SENTINEL is an unknown command, exactly as on a standalone Redis.
//
// The replication package implements it. Its methods are called on the
// command goroutine and must not block: they read state the replication
// layer keeps up to date on its own goroutines.
type Cluster interface {
	// Self is this node.
	Self() Node
	// Leader returns the current leader; ok is false while none is known
	// (an election is running, or this node is cut off).
	Leader() (leader Node, ok bool)
	// Nodes returns every member of the Raft configuration (voters and
	// non-voters, this node included), ordered by ID.
	Nodes() []Node
	// Status is this node's view of Raft progress (INFO replication).
	Status() ClusterStatus
}

// Node is one member of the cluster.
type Node struct {
	ID string
	// RaftAddr is the address peers dial for Raft (host:port).
	RaftAddr string
	// ClientAddr is the address clients are sent to (host:port): MOVED,
	// CLUSTER SLOTS/SHARDS/NODES, SENTINEL get-master-addr-by-name. Empty
	// while the node has not announced it yet.
	ClientAddr string
	Voter      bool
	Leader     bool
	// Self is set for the node answering.
	Self bool
	// MatchIndex is the highest Raft log index the node is known to hold
	// (as the leader last heard; the leader's own last index for itself).
	MatchIndex uint64
	// AppliedIndex is the highest index the node reported applied.
	AppliedIndex uint64
	// LagMs is how long ago the node was last heard from, in ms (0 for
	// self); -1 when never.
	LagMs int64
}

// ClusterStatus is this node's Raft state.
type ClusterStatus struct {
	State        string // "leader", "follower", "candidate", "shutdown"
	Term         uint64
	LastLogIndex uint64
	CommitIndex  uint64
	AppliedIndex uint64
	// FirstIndex is the first index still in the log (after compaction).
	FirstIndex uint64
	// LastSnapshotIndex is the index of the newest snapshot, 0 for none.
	LastSnapshotIndex uint64
}
