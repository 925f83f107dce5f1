package engine

import (
	"errors"
	"net"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// ClusterAdmin changes the cluster's membership; the replication layer
// implements it next to Cluster. done is called on the command goroutine.
type ClusterAdmin interface {
	AddNode(id, raftAddr, clientAddr string, voter bool, done func(error))
	// Ack records a follower's progress (RAFT.NODE ACK); an error is
	// the reply (a follower this leader removed learns it so).
	Ack(id string, match, applied uint64) error
	RemoveNode(id string, done func(error))
}

// RAFT.NODE exists only in cluster mode: a standalone server answers it
// with the unknown-command error and leaves it out of COMMAND, as it does
// SENTINEL, so its command table stays Redis's.
var raftCommands = []*Spec{
	{Name: "raft.node", Arity: -2, ClusterOnly: true, ACL: []string{"admin", "dangerous"}, Origin: OriginLockkv, Doc: docRaftNode, Sub: []*Spec{
		{Name: "add", Arity: -5, Flags: Admin | NoScript | NoMulti, Origin: OriginLockkv, Doc: docRaftNodeAdd, Fn: raftNodeAdd},
		{Name: "ack", Arity: 5, Flags: Admin | NoScript | NoMulti | Fast | SkipMonitor, Origin: OriginLockkv, Doc: docRaftNodeAck, Fn: raftNodeAck},
		{Name: "remove", Arity: 3, Flags: Admin | NoScript | NoMulti, Origin: OriginLockkv, Doc: docRaftNodeRemove, Fn: raftNodeRemove},
		{Name: "transfer", Arity: -2, Flags: Admin | NoScript | NoMulti, Origin: OriginLockkv, Doc: docRaftNodeTransfer, Fn: raftNodeTransfer},
		{Name: "help", Arity: 2, Flags: Loading | Stale, Origin: OriginLockkv, Doc: docRaftNodeHelp, Fn: raftNodeHelp},
	}},
}

var raftNodeHelpLines = []string{
	"ADD <node-id> <raft-address> <client-address> [VOTER|NONVOTER]",
	"    Add a node, on the leader. The leader checks through the Raft handshake that",
	"    <raft-address> is node <node-id> and belongs to no other cluster, adds it as",
	"    a non-voter, and (VOTER, the default) makes it a voter once it has caught up.",
	"    Replies when that is done, or with the reason it was refused.",
	"REMOVE <node-id>",
	"    Remove a node, on the leader. A removed node stops.",
	"TRANSFER [<node-id>]",
	"    Hand leadership to <node-id> (default: the most up-to-date voter), on the",
	"    leader. Replies once the other node leads.",
	"ACK <node-id> <match-index> <applied-index>",
	"    A follower's progress report to the leader (sent by the nodes themselves).",
}

func raftNodeHelp(c *Ctx, args [][]byte) { replyHelp(c, "raft.node", raftNodeHelpLines) }

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

// validHostPort reports whether a is host:port with a non-empty host and a
// port from 1 to 65535 (whether the host resolves is the leader's check,
// off the command goroutine).
func validHostPort(a string) bool {
	if len(a) > 255 {
		return false
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" || strings.ContainsAny(host, " \t\r\n") {
		return false
	}
	p, ok := redisnum.ParseInt([]byte(port))
	return ok && p >= 1 && p <= 65535
}

func init() { Register(raftCommands) }

// clusterAdmin returns the admin interface, or answers why there is none.
func (c *Ctx) clusterAdmin(spec *Spec, args [][]byte) ClusterAdmin {
	adm, ok := c.E.Cluster.(ClusterAdmin)
	if !ok {
		c.Error(ErrClusterDisabled)
		return nil
	}
	if !c.E.IsLeader() {
		c.Error(c.notLeaderError(spec, args))
		return nil
	}
	return adm
}

// RAFT.NODE ADD id raftaddr clientaddr [VOTER|NONVOTER]
func raftNodeAdd(c *Ctx, args [][]byte) {
	voter := true
	if len(args) > 6 {
		c.Error(ErrSyntax)
		return
	}
	if len(args) == 6 {
		switch strings.ToLower(string(args[5])) {
		case "voter":
		case "nonvoter":
			voter = false
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	switch {
	case !ValidNodeID(string(args[2])):
		c.Error(ErrRaftNodeID)
		return
	case !validHostPort(string(args[3])):
		c.Error(ErrRaftAddr(args[3]))
		return
	case !validHostPort(string(args[4])):
		c.Error(ErrRaftClientAddr(args[4]))
		return
	}
	adm := c.clusterAdmin(c.Spec, args)
	if adm == nil {
		return
	}
	reply := c.E.replyLater(c.C)
	adm.AddNode(string(args[2]), string(args[3]), string(args[4]), voter, func(err error) {
		reply(func(w *Ctx) {
			if err != nil {
				w.Error("ERR " + err.Error())
				return
			}
			w.W.OK()
		})
	})
}

// RAFT.NODE REMOVE id
func raftNodeRemove(c *Ctx, args [][]byte) {
	if !ValidNodeID(string(args[2])) {
		c.Error(ErrRaftNodeID)
		return
	}
	adm := c.clusterAdmin(c.Spec, args)
	if adm == nil {
		return
	}
	reply := c.E.replyLater(c.C)
	adm.RemoveNode(string(args[2]), func(err error) {
		reply(func(w *Ctx) {
			if err != nil {
				w.Error("ERR " + err.Error())
				return
			}
			w.W.OK()
		})
	})
}

// replyLater parks cl (its pipeline waits) and returns the function that
// writes its reply and lets it go on; it must run on the command
// goroutine.
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

// LeaderTransferer moves leadership (replication.Node).
type LeaderTransferer interface {
	// TransferLeadership hands leadership to id ("" for the most
	// up-to-date voter), on the leader; done runs on the command
	// goroutine once another node leads, or with the reason not.
	TransferLeadership(id string, done func(error))
	// RequestLeadership asks the leader to hand leadership to this
	// node, likewise.
	RequestLeadership(done func(error))
}

// RAFT.NODE TRANSFER [id]
func raftNodeTransfer(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	id := ""
	if len(args) == 3 {
		if id = string(args[2]); !ValidNodeID(id) {
			c.Error(ErrRaftNodeID)
			return
		}
	}
	lt, ok := c.E.Cluster.(LeaderTransferer)
	if !ok {
		c.Error(ErrClusterDisabled)
		return
	}
	if c.clusterAdmin(c.Spec, args) == nil {
		return
	}
	reply := c.E.replyLater(c.C)
	lt.TransferLeadership(id, func(err error) { reply(okOrErr(err)) })
}

// ErrNoLongerLeads is a leader transfer's error when this node lost
// leadership meanwhile: the client is sent to the leader.
var ErrNoLongerLeads = errors.New("this node no longer leads")

// okOrErr writes OK, or err as an ERR reply (MOVED for ErrNoLongerLeads).
func okOrErr(err error) func(*Ctx) {
	return func(w *Ctx) {
		switch {
		case errors.Is(err, ErrNoLongerLeads):
			w.Error(w.E.movedToLeader())
		case err != nil:
			w.Error("ERR " + err.Error())
		default:
			w.W.OK()
		}
	}
}

// CLUSTER FAILOVER [FORCE|TAKEOVER]: on a follower, this node becomes the
// leader (the leader hands leadership over, as Redis's coordinated manual
// failover has the master hand over to the replica it is sent to); on the
// leader, the most up-to-date follower does (Redis refuses a master).
// FORCE, which in Redis proceeds without the master's agreement, is the
// same here: Raft moves leadership only through the leader, and without a
// leader the cluster elects one by itself. TAKEOVER, which in Redis
// promotes a replica without any vote, is refused: lockkv never lets a
// node lead without a quorum. The reply comes once the move is done.
func clusterFailover(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	if len(args) == 3 {
		switch {
		case cstr.EqualFold(args[2], "force"):
		case cstr.EqualFold(args[2], "takeover"):
			c.Error(ErrFailoverTakeover)
			return
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	lt, ok := c.E.Cluster.(LeaderTransferer)
	if !ok {
		c.Error(ErrClusterDisabled)
		return
	}
	if c.InScript || c.InExec || c.Applying {
		c.Error(ErrFailoverNested)
		return
	}
	reply := c.E.replyLater(c.C)
	done := func(err error) { reply(okOrErr(err)) }
	if c.E.IsLeader() {
		lt.TransferLeadership("", done)
		return
	}
	lt.RequestLeadership(done)
}

// RAFT.NODE ACK id match applied: a follower's progress, sent to the
// leader (as REPLCONF ACK).
func raftNodeAck(c *Ctx, args [][]byte) {
	adm, ok := c.E.Cluster.(ClusterAdmin)
	if !ok {
		c.Error(ErrClusterDisabled)
		return
	}
	match, ok1 := redisnum.ParseInt(args[3])
	applied, ok2 := redisnum.ParseInt(args[4])
	if !ok1 || !ok2 || match < 0 || applied < 0 {
		c.Error(ErrNotInt)
		return
	}
	if err := adm.Ack(string(args[2]), uint64(match), uint64(applied)); err != nil {
		c.Error("ERR " + err.Error())
		return
	}
	c.E.waitRecheck()
	c.W.OK()
}
