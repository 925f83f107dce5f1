package engine

import (
	"errors"
)

// What the engine knows of cluster administration: the interfaces the
// replication layer implements for RAFT.NODE and CLUSTER FAILOVER, the
// rule for node IDs, and a reply promised for later.

// ClusterAdmin changes the cluster's membership; the replication layer
// implements it next to Cluster. done is called on the command goroutine.
type ClusterAdmin interface {
	AddNode(id, raftAddr, clientAddr string, voter bool, done func(error))
	// Ack records a follower's progress (RAFT.NODE ACK); an error is
	// the reply (a follower this leader removed learns it so).
	Ack(id string, match, applied uint64) error
	RemoveNode(id string, done func(error))
}

// NodeIDRule says what ValidNodeID accepts.
const NodeIDRule = "a node ID is 1 to 255 printable ASCII characters, without spaces"

// ValidNodeID reports whether id may name a Raft node: the handshake
// carries at most 255 bytes, and a node ID appears in logs, INFO lines and
// error replies, so it holds no space, control or non-ASCII byte.
func ValidNodeID(id string) bool {
	if len(id) == 0 || len(id) > 255 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// LeaderTransferer moves leadership (replication.Node).
type LeaderTransferer interface {
	// TransferLeadership hands leadership to id ("" for the most
	// up-to-date voter), on the leader; done runs on the command
	// goroutine once another node leads, or with the reason not.
	TransferLeadership(id string, done func(error))
	// RequestLeadership asks the leader to hand leadership to this
	// node, likewise; leader is the leader as the engine sees it
	// (Engine.Cluster: its client address from the member registry),
	// the zero Node while none is known.
	RequestLeadership(leader Node, done func(error))
}

// ErrNoLongerLeads is a leader transfer's error when this node lost
// leadership meanwhile: the client is sent to the leader.
var ErrNoLongerLeads = errors.New("this node no longer leads")

// ReplyLater parks the client running c's command (its pipeline waits)
// and returns the function that writes its reply and lets it go on; that
// must run on the command goroutine.
func (c *Ctx) ReplyLater() func(func(*Ctx)) { return c.E.replyLater(c.C) }

func (e *Engine) replyLater(cl *Client) func(func(*Ctx)) {
	e.park(cl, parkReply)
	return func(write func(*Ctx)) {
		if cl.freed || cl.park != parkReply {
			return // gone, or its command panicked and was answered
		}
		e.unpark(cl, parkReply)
		ctx := &Ctx{E: e, C: cl, W: e.Writer(cl), DB: e.DBs[cl.DB], Now: e.NowMs()}
		write(ctx)
		e.runPending(cl)
	}
}
