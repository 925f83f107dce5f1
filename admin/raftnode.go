package admin

import (
	"errors"
	"net"
	"strings"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// RAFT.NODE exists only in cluster mode: a standalone server answers it
// with the unknown-command error and leaves it out of COMMAND, as it does
// SENTINEL, so its command table stays Redis's.
var raftCommands = []*engine.Spec{
	{Name: "raft.node", Arity: -2, ClusterOnly: true, ACL: []string{"admin", "dangerous"}, Origin: engine.OriginLockkv, Doc: docRaftNode, Sub: []*engine.Spec{
		{Name: "add", Arity: -5, Flags: engine.Admin | engine.NoScript | engine.NoMulti, Origin: engine.OriginLockkv, Doc: docRaftNodeAdd, Fn: raftNodeAdd},
		{Name: "ack", Arity: 5, Flags: engine.Admin | engine.NoScript | engine.NoMulti | engine.Fast | engine.SkipMonitor, Origin: engine.OriginLockkv, Doc: docRaftNodeAck, Fn: raftNodeAck},
		{Name: "remove", Arity: 3, Flags: engine.Admin | engine.NoScript | engine.NoMulti, Origin: engine.OriginLockkv, Doc: docRaftNodeRemove, Fn: raftNodeRemove},
		{Name: "transfer", Arity: -2, Flags: engine.Admin | engine.NoScript | engine.NoMulti, Origin: engine.OriginLockkv, Doc: docRaftNodeTransfer, Fn: raftNodeTransfer},
		{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale, Origin: engine.OriginLockkv, Doc: docRaftNodeHelp, Fn: raftNodeHelp},
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

func raftNodeHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "raft.node", raftNodeHelpLines) }

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

func init() { engine.Register(raftCommands) }

// clusterAdmin returns the admin interface, or answers why there is none.
func clusterAdmin(c *engine.Ctx, spec *engine.Spec, args [][]byte) engine.ClusterAdmin {
	adm := c.E.ClusterAdmin()
	if adm == nil {
		c.Error(engine.ErrClusterDisabled)
		return nil
	}
	if !c.E.IsLeader() {
		c.Error(c.NotLeaderError(spec, args))
		return nil
	}
	return adm
}

// RAFT.NODE ADD id raftaddr clientaddr [VOTER|NONVOTER]
func raftNodeAdd(c *engine.Ctx, args [][]byte) {
	voter := true
	if len(args) > 6 {
		c.Error(engine.ErrSyntax)
		return
	}
	if len(args) == 6 {
		switch strings.ToLower(string(args[5])) {
		case "voter":
		case "nonvoter":
			voter = false
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	switch {
	case !engine.ValidNodeID(string(args[2])):
		c.Error(engine.ErrRaftNodeID)
		return
	case !validHostPort(string(args[3])):
		c.Error(engine.ErrRaftAddr(args[3]))
		return
	case !validHostPort(string(args[4])):
		c.Error(engine.ErrRaftClientAddr(args[4]))
		return
	}
	adm := clusterAdmin(c, c.Spec, args)
	if adm == nil {
		return
	}
	reply := c.ReplyLater()
	adm.AddNode(string(args[2]), string(args[3]), string(args[4]), voter, func(err error) {
		reply(func(w *engine.Ctx) {
			if err != nil {
				w.Error("ERR " + err.Error())
				return
			}
			w.W.OK()
		})
	})
}

// RAFT.NODE REMOVE id
func raftNodeRemove(c *engine.Ctx, args [][]byte) {
	if !engine.ValidNodeID(string(args[2])) {
		c.Error(engine.ErrRaftNodeID)
		return
	}
	adm := clusterAdmin(c, c.Spec, args)
	if adm == nil {
		return
	}
	reply := c.ReplyLater()
	adm.RemoveNode(string(args[2]), func(err error) {
		reply(func(w *engine.Ctx) {
			if err != nil {
				w.Error("ERR " + err.Error())
				return
			}
			w.W.OK()
		})
	})
}

// RAFT.NODE TRANSFER [id]
func raftNodeTransfer(c *engine.Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(engine.ErrSyntax)
		return
	}
	id := ""
	if len(args) == 3 {
		if id = string(args[2]); !engine.ValidNodeID(id) {
			c.Error(engine.ErrRaftNodeID)
			return
		}
	}
	lt := c.E.LeaderTransferer()
	if lt == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	if clusterAdmin(c, c.Spec, args) == nil {
		return
	}
	reply := c.ReplyLater()
	lt.TransferLeadership(id, func(err error) { reply(okOrErr(err)) })
}

// okOrErr writes OK, or err as an ERR reply (MOVED for ErrNoLongerLeads).
func okOrErr(err error) func(*engine.Ctx) {
	return func(w *engine.Ctx) {
		switch {
		case errors.Is(err, engine.ErrNoLongerLeads):
			w.Error(w.E.MovedToLeader())
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
func clusterFailover(c *engine.Ctx, args [][]byte) {
	if len(args) > 3 {
		c.Error(engine.ErrSyntax)
		return
	}
	if len(args) == 3 {
		switch {
		case cstr.EqualFold(args[2], "force"):
		case cstr.EqualFold(args[2], "takeover"):
			c.Error(engine.ErrFailoverTakeover)
			return
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	lt := c.E.LeaderTransferer()
	if lt == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	if c.InScript || c.InExec || c.Applying {
		c.Error(engine.ErrFailoverNested)
		return
	}
	reply := c.ReplyLater()
	done := func(err error) { reply(okOrErr(err)) }
	if c.E.IsLeader() {
		lt.TransferLeadership("", done)
		return
	}
	leader, _ := c.E.Cluster().Leader()
	lt.RequestLeadership(leader, done)
}

// RAFT.NODE ACK id match applied: a follower's progress, sent to the
// leader (as REPLCONF ACK).
func raftNodeAck(c *engine.Ctx, args [][]byte) {
	adm := c.E.ClusterAdmin()
	if adm == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	match, ok1 := redisnum.ParseInt(args[3])
	applied, ok2 := redisnum.ParseInt(args[4])
	if !ok1 || !ok2 || match < 0 || applied < 0 {
		c.Error(engine.ErrNotInt)
		return
	}
	if err := adm.Ack(string(args[2]), uint64(match), uint64(applied)); err != nil {
		c.Error("ERR " + err.Error())
		return
	}
	c.E.ReplicasProgressed()
	c.W.OK()
}
