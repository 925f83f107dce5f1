package engine

import (
	"math"

	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// WAIT and WAITAOF.

var serverCommands = []*Spec{
	{Name: "wait", Arity: 3, Flags: NoScript, ACL: []string{"connection"}, Repl: ReplLeader, Fwd: FwdWaits, Tips: []string{"request_policy:all_shards", "response_policy:agg_min"}, NodeLocal: true, Fn: waitCmd},                                               // NodeLocal: the replicas this node has seen acknowledge
	{Name: "waitaof", Arity: 4, Flags: NoScript, ACL: []string{"connection"}, Repl: ReplLeader, Fwd: FwdWaits, Tips: []string{"request_policy:all_shards", "response_policy:agg_min"}, Origin: OriginRedis72, Doc: docWaitaof, NodeLocal: true, Fn: waitaofCmd}, // 7.2; NodeLocal: the replicas this node has seen acknowledge
}

func init() { Register(serverCommands) }

func waitCmd(c *Ctx, args [][]byte) {
	if c.E.isReplica() {
		c.Error(ErrWaitReplica) // before the arguments, as Redis
		return
	}
	n, ok := redisnum.ParseInt(args[1])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	ms, ok := c.timeoutMillis(args[2])
	if !ok {
		return
	}
	have := c.E.replicasHolding(c.C)
	if int64(have) >= n || c.C.multi.active || c.InExec || c.InScript {
		c.W.Int(int64(have))
		return
	}
	// Like Redis, wait until enough replicas hold the client's last write
	// or the timeout (forever for 0) passes, then answer how many do. A
	// standalone server has none and answers 0 at the timeout.
	c.E.waitReplicas(c.C, waitEntry{n: n}, ms)
}

// waitaofCmd is Redis 7.2's WAITAOF numlocal numreplicas timeout (7.0.15
// lacks it): wait until the client's last write is on disk here (numlocal,
// 0 or 1, which needs appendonly) and on numreplicas replicas, then answer
// [local, replicas]. The arguments are checked in 7.2's order and words.
func waitaofCmd(c *Ctx, args [][]byte) {
	if c.E.isReplica() {
		c.Error(ErrWaitAOFReplica)
		return
	}
	local, ok := redisnum.ParseInt(args[1])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if local < 0 || local > 1 {
		c.Error(ErrWaitAOFLocalRange)
		return
	}
	n, ok := redisnum.ParseInt(args[2]) // getPositiveLongFromObjectOrReply: one text for both
	if !ok || n < 0 {
		c.Error(ErrCountPositive)
		return
	}
	ms, ok := c.timeoutMillis(args[3])
	if !ok {
		return
	}
	if ms > 0 && ms > math.MaxInt64-c.Now {
		c.Error(ErrTimeoutOverflow) // 7.2 checks what 7.0's WAIT lets wrap
		return
	}
	if local > 0 && !c.E.appendOnly() {
		c.Error(ErrWaitAOFNoAOF)
		return
	}
	haveLocal, have := c.E.aofHolding(c.C)
	if (have >= n && haveLocal >= local) || c.C.multi.active || c.InExec || c.InScript {
		writeWaitAOF(c.W, haveLocal, have)
		return
	}
	c.E.waitReplicas(c.C, waitEntry{n: n, aof: true, local: local}, ms)
}

func writeWaitAOF(w *resp.Writer, local, replicas int64) {
	w.Array(2)
	w.Int(local)
	w.Int(replicas)
}

// appendOnly reports whether appendonly is set (WAITAOF numlocal needs it).
// A durable cluster node logs every write to disk before it applies it, so
// it counts as appendonly.
func (e *Engine) appendOnly() bool {
	return e.Config.String("appendonly") == "yes" || (e.cluster != nil && e.cluster.Status().Durable)
}

// aofHolding answers WAITAOF: whether cl's last write is on this server's
// disk (local, 0 or 1) and on how many replicas' disks. A standalone
// lockkv writes nothing to disk: 0 and 0, as Redis with appendonly off
// (its fsynced offset stays -1). With appendonly set it still reports 0
// here, so WAITAOF 1 waits for its timeout: lockkv does not claim a copy
// it does not have. In a Raft cluster a follower writes an entry to its
// log store before it acknowledges it, so the replicas holding the write
// (replicasHolding) hold it on disk.
func (e *Engine) aofHolding(cl *Client) (local, replicas int64) {
	if e.cluster == nil || !e.IsLeader() {
		return 0, 0
	}
	if e.cluster.Status().Durable {
		// The leader counts itself towards a commit only once the entry
		// is in its own log on disk, and it answers after the commit.
		local = 1
	}
	return local, int64(e.replicasHolding(cl))
}

// waitReplicas parks cl in WAIT or WAITAOF w until it is satisfied or its
// timeout (ms, 0 for never) passes.
func (e *Engine) waitReplicas(cl *Client, w waitEntry, ms int64) {
	if ms > 0 {
		w.deadline = e.NowMs() + ms
	}
	e.park(cl, parkWait)
	w.cl = cl
	e.srv.waits = append(e.srv.waits, w)
}

// replicasHolding counts the replicas known to hold cl's last write: on a
// Raft leader, the followers that reported having its entry, and at least
// the quorum's followers once it is committed (they wrote it to disk
// before acknowledging it). 0 on a standalone server.
func (e *Engine) replicasHolding(cl *Client) int {
	if e.cluster == nil || !e.IsLeader() {
		return 0
	}
	index := cl.LastWriteIndex()
	voters, have := 0, 0
	for _, n := range e.cluster.Nodes() {
		if n.Voter {
			voters++
		}
		if !n.Self && n.LagMs >= 0 && n.MatchIndex >= index {
			have++
		}
	}
	if index > 0 && have < voters/2 {
		// The leader applied the entry, so it is committed.
		have = voters / 2
	}
	return have
}

// waitSatisfied reports whether w can be answered now.
func (e *Engine) waitSatisfied(w waitEntry) bool {
	if !w.aof {
		return int64(e.replicasHolding(w.cl)) >= w.n
	}
	local, have := e.aofHolding(w.cl)
	return local >= w.local && have >= w.n
}

// waitRecheck answers the WAITs and WAITAOFs that are now satisfied (a
// follower reported progress), and fails the WAITAOFs for a local copy
// once appendonly is off, as Redis's processClientsWaitingReplicas does.
func (e *Engine) waitRecheck() {
	e.waitAnswer(func(w waitEntry) bool { return e.waitSatisfied(w) || w.aof && w.local > 0 && !e.appendOnly() })
}

// waitTimeouts answers the WAITs and WAITAOFs whose timeout passed.
func (e *Engine) waitTimeouts(now int64) {
	e.waitAnswer(func(w waitEntry) bool { return w.deadline != 0 && now >= w.deadline })
}

// waitAnswer answers, in the order they arrived, the waiting clients done
// reports, and forgets freed ones.
func (e *Engine) waitAnswer(done func(waitEntry) bool) {
	if len(e.srv.waits) == 0 {
		return
	}
	keep := e.srv.waits[:0]
	var answer []waitEntry
	for _, w := range e.srv.waits {
		switch {
		case w.cl.freed:
		case done(w):
			answer = append(answer, w)
		default:
			keep = append(keep, w)
		}
	}
	for i := len(keep); i < len(e.srv.waits); i++ {
		e.srv.waits[i] = waitEntry{}
	}
	e.srv.waits = keep
	for _, w := range answer {
		e.waitDone(w, "")
	}
}

// waitUnblock ends cl's WAIT or WAITAOF for CLIENT UNBLOCK: with errMsg,
// or with the reply of a timeout when errMsg is "". It reports whether cl
// was waiting.
func (e *Engine) waitUnblock(cl *Client, errMsg string) bool {
	for i, w := range e.srv.waits {
		if w.cl == cl {
			e.srv.waits = append(e.srv.waits[:i], e.srv.waits[i+1:]...)
			e.waitDone(w, errMsg)
			return true
		}
	}
	return false
}

// waitDone writes w's reply (errMsg, else the counts now); the client's
// next commands run from FlushOutputs, as Redis runs unblocked clients
// before it sleeps.
func (e *Engine) waitDone(w waitEntry, errMsg string) {
	cl := w.cl
	e.unpark(cl, parkWait)
	if cl.ReplyMode == ReplyOn {
		out := e.Writer(cl)
		switch {
		case errMsg != "":
			out.Error(errMsg)
			e.countError([]byte(errMsg))
		case w.aof && w.local > 0 && !e.appendOnly():
			out.Error(ErrWaitAOFNoAOF)
			e.countError([]byte(ErrWaitAOFNoAOF))
		case w.aof:
			local, have := e.aofHolding(cl)
			writeWaitAOF(out, local, have)
		default:
			out.Int(int64(e.replicasHolding(cl)))
		}
	}
	e.resumeLater(cl)
}

type waitEntry struct {
	cl       *Client
	deadline int64 // Unix ms; 0 = never
	n        int64 // replicas wanted
	aof      bool  // WAITAOF: the copies must be on disk
	local    int64 // WAITAOF numlocal
}

func (e *Engine) waitDeadline() int64 {
	at := int64(0)
	for _, w := range e.srv.waits {
		if w.deadline != 0 && (at == 0 || w.deadline < at) {
			at = w.deadline
		}
	}
	return at
}

// MEMORY

// OBJECT

// sharedInt reports whether v is one of the integers 0..9999 Redis shares
// between keys (OBJ_SHARED_INTEGERS), and which: an int-encoded string
// written canonically.
func sharedInt(v store.Value) (int, bool) {
	s, ok := v.(*store.String)
	if !ok || len(s.B) == 0 || len(s.B) > 4 || s.Raw || s.NotInt || (s.B[0] == '0' && len(s.B) > 1) {
		return 0, false
	}
	n := 0
	for _, d := range s.B {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, true
}

// refcount is what OBJECT REFCOUNT reports: a shared integer's is INT_MAX.
func refcount(v store.Value) int64 {
	if _, ok := sharedInt(v); ok {
		return 2147483647
	}
	return 1
}

// touchShared records an access to shared integer n.
func (e *Engine) touchShared(n int, now int64) {
	*e.sharedSlot(n) = e.accessed(e.sharedAccessTime(n), now)
}

// sharedSlot is shared integer n's access data.
func (e *Engine) sharedSlot(n int) *int64 {
	if e.sharedAccess == nil {
		e.sharedAccess = make([]int64, 10000)
	}
	return &e.sharedAccess[n]
}

// sharedAccessTime is shared integer n's last access, or the server's
// start, when Redis creates the shared objects.
func (e *Engine) sharedAccessTime(n int) int64 {
	if e.sharedAccess != nil && e.sharedAccess[n] != 0 {
		return e.sharedAccess[n]
	}
	return e.StartTime.UnixMilli()
}
