package commands

import "strings"

// ClusterAdmin changes the cluster's membership; the replication layer
// implements it next to Cluster. done is called on the command goroutine.
type ClusterAdmin interface {
	AddNode(id, raftAddr, clientAddr string, voter bool, done func(error))
	// Ack records a follower's progress (RAFT.ACK).
	Ack(id string, match, applied uint64)
	RemoveNode(id string, done func(error))
}

// RAFT.NODE exists only in cluster mode: a standalone server answers it
// with the unknown-command error and leaves it out of COMMAND, as it does
// SENTINEL, so its command table stays Redis's.
var raftCommands = []*Spec{
	{Name: "raft.node", Arity: -2, ClusterOnly: true, ACL: []string{"admin", "slow", "dangerous"}, Sub: []*Spec{
		{Name: "add", Arity: -5, Flags: Admin | NoScript | NoMulti, ACL: []string{"admin", "slow", "dangerous"}, Fn: raftNodeAdd},
		{Name: "ack", Arity: 5, Flags: Admin | NoScript | NoMulti | Fast | SkipMonitor, ACL: []string{"admin", "fast", "dangerous"}, Fn: raftNodeAck},
		{Name: "remove", Arity: 3, Flags: Admin | NoScript | NoMulti, ACL: []string{"admin", "slow", "dangerous"}, Fn: raftNodeRemove},
	}},
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
	cl.waiting = true
	return func(write func(*Ctx)) {
		if cl.freed {
			return
		}
		cl.waiting = false
		ctx := &Ctx{E: e, C: cl, W: e.Writer(cl), DB: e.DBs[cl.DB], Now: e.NowMs()}
		write(ctx)
		e.runPending(cl)
	}
}

// RAFT.NODE ACK id match applied: a follower's progress, sent to the
// leader (as REPLCONF ACK).
func raftNodeAck(c *Ctx, args [][]byte) {
	adm, ok := c.E.Cluster.(ClusterAdmin)
	if !ok {
		c.Error(ErrClusterDisabled)
		return
	}
	match, ok1 := ParseInt(args[3])
	applied, ok2 := ParseInt(args[4])
	if !ok1 || !ok2 || match < 0 || applied < 0 {
		c.Error(ErrNotInt)
		return
	}
	adm.Ack(string(args[2]), uint64(match), uint64(applied))
	c.E.waitRecheck()
	c.W.OK()
}
