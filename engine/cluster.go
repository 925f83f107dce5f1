package engine

import (
	"strconv"

	"github.com/lockkv/lockkv/config"
)

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

// LagReporter is a Cluster that also measures its members' replication
// lag (Node.ReplLagMs), which Nodes leaves at -1 for its cost.
type LagReporter interface {
	NodesWithLag() []Node
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
	// self); -1 when never (INFO's last_contact_ms).
	LagMs int64
	// ReplLagMs is the node's replication lag (INFO's lag_ms): how old,
	// in ms by the leader's clock, the oldest committed write is that it
	// has not applied; 0 when caught up, -1 when unknown.
	ReplLagMs int64
	// Progress is set when MatchIndex, AppliedIndex and ReplLagMs are
	// known: for every member on the leader, for itself on a follower.
	Progress bool
}

// ClusterStatus is this node's Raft state.
type ClusterStatus struct {
	// ClusterID is the cluster's identity (hex), "" while this node knows
	// none yet.
	ClusterID    string
	State        string // "leader", "follower", "candidate", "shutdown"
	Term         uint64
	LastLogIndex uint64
	CommitIndex  uint64
	AppliedIndex uint64
	// FirstIndex is the first index still in the log (after compaction).
	FirstIndex uint64
	// LastSnapshotIndex is the index of the newest snapshot, 0 for none.
	LastSnapshotIndex uint64
	// Durable is set when the log is on disk (a data directory): an entry
	// is fsynced on a node before that node acknowledges it.
	Durable bool
}

// KeySlot is Redis Cluster's hash slot of key (keyHashSlot): CRC16 of the
// key, or of its hash tag (the part between the first '{' and the next '}'
// when that part is not empty), modulo 16384.
func KeySlot(key []byte) int {
	for i, ch := range key {
		if ch == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						key = key[i+1 : j]
					}
					break
				}
			}
			break
		}
	}
	return int(crc16(key) & 16383)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0), Redis's crc16.c.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// Redirect decides whether this node may run a command in cluster mode.
// It returns "" when it may, else the error to answer: "MOVED <slot>
// <leader client address>", the slot being that of the command's first
// key, or ErrClusterDown while no leader (with a client address) is known.
//
// The leader runs everything. A follower runs keyless commands (they are
// never redirected: there is no slot to name), and read-only commands when
// the client sent READONLY or the read mode is "stale"; everything else
// goes to the leader. A standalone server runs everything.
func (c *Ctx) Redirect(spec *Spec, args [][]byte) string {
	e := c.E
	if e.cluster == nil {
		return ""
	}
	pos := spec.KeyPositions(args)
	if len(pos) == 0 {
		return ""
	}
	leader, ok := e.cluster.Leader()
	if ok && leader.ID == e.cluster.Self().ID {
		return ""
	}
	if spec.Flags&ReadOnly != 0 && (c.C.Readonly || e.Config.ReadMode == config.ReadStale) {
		return ""
	}
	if !ok || leader.ClientAddr == "" {
		return ErrClusterDown
	}
	return "MOVED " + strconv.Itoa(KeySlot(args[pos[0]])) + " " + leader.ClientAddr
}
