package engine

import (
	"bufio"
	"bytes"
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/store"
)

// Replication, as the engine sees it.
//
// On a replicated server (Options.Replication with a Log) a command that changes
// the replicated state (a write, a script invocation, EXEC of a transaction
// holding one, PUBLISH, SCRIPT LOAD/FLUSH) does not run when the client
// sends it. The leader turns it into an Op and hands it to the Replicator;
// the replication layer puts the ops of one loop iteration into one Raft
// log entry stamped with the leader's clock and a random seed, and every
// node applies committed entries with ApplyEntry, on its command goroutine,
// through Exec: one execution path. On the leader the client that sent the
// op is parked until its entry is applied and gets the reply the apply
// produced; on the other nodes the op runs as an internal client whose
// output is dropped.
//
// Applying is deterministic: the entry's time is "now" for everything
// (TTLs, TIME, scripts), its seed drives every random choice, and nothing
// depends on client state other than what the op carries (database,
// protocol, the MULTI queue). State that only the leader's clients have
// stays on the leader: a blocked client (BLPOP) waits there, and when a key
// it waits on becomes ready the leader proposes its command again instead of
// serving it in place; WATCH is checked by the leader once no op of its own
// is in flight, so that the EXEC it proposes cannot be dirtied before it is
// applied. Expiry is decided by the leader: it proposes the keys due, and
// followers never expire keys on their own.

// OpKind says what an Op does.
type OpKind uint8

// Op kinds.
const (
	// OpCommand runs Args[0] as one command.
	OpCommand OpKind = iota + 1
	// OpExec runs Args (the MULTI queue) as one transaction.
	OpExec
	// OpExpire removes the keys in Args[0] that are expired at the entry's
	// time, as active expiry does.
	OpExpire
)

// Op is one replicated operation. Args are owned by the op.
type Op struct {
	Kind OpKind
	// Origin identifies the process that proposed the op (a random number
	// per process), Seq the op among that process's ops.
	Origin uint64
	Seq    uint64
	DB     int
	Proto  int
	Args   [][][]byte
	// OOM is the leader's memory state when it proposed the op (over a
	// maxmemory it has set): the scripts the op runs are judged by it on
	// every node (see evict.go).
	OOM bool
	// Settings are the proposing leader's settings that shape what the
	// op does; nil for Redis's defaults (ApplySettings).
	Settings *ApplySettings
}

// ApplySettings are the CONFIG settings that change what applying an op
// does: the largest string a command may build (proto-max-bulk-len), the
// encoding thresholds (which encoding a value takes is replicated state,
// and OBJECT ENCODING shows it) and LFU's (by which OBJECT FREQ in a
// script answers or fails; LFU counters themselves draw from the node's
// own generator, not the entry's numbers). CONFIG SET changes one node's
// settings, and nodes may start with different ones, so the leader puts
// its own into every op it proposes (only when they are not the
// defaults) and every node applies the op with them: the cluster follows
// its leader's settings, the same on every node and at every replay.
type ApplySettings struct {
	ProtoMaxBulkLen        int64
	HashMaxListpackEntries int
	HashMaxListpackValue   int
	SetMaxIntsetEntries    int
	ZSetMaxListpackEntries int
	ZSetMaxListpackValue   int
	LFU                    bool
	LFULogFactor           int
	LFUDecayTime           int
}

// DefaultApplySettings are Redis 7.0's defaults.
var DefaultApplySettings = applySettingsOf(config.NewConfig())

// applySettingsOf are c's settings that apply replicated ops.
func applySettingsOf(c *config.Config) ApplySettings {
	return ApplySettings{
		ProtoMaxBulkLen:        c.ProtoMaxBulkLen,
		HashMaxListpackEntries: c.HashMaxListpackEntries,
		HashMaxListpackValue:   c.HashMaxListpackValue,
		SetMaxIntsetEntries:    c.SetMaxIntsetEntries,
		ZSetMaxListpackEntries: c.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   c.ZSetMaxListpackValue,
		LFU:                    c.LFU,
		LFULogFactor:           c.LFULogFactor,
		LFUDecayTime:           c.LFUDecayTime,
	}
}

// setApplySettings sets c's settings that apply replicated ops.
func setApplySettings(c *config.Config, s *ApplySettings) {
	c.ProtoMaxBulkLen = s.ProtoMaxBulkLen
	c.HashMaxListpackEntries, c.HashMaxListpackValue = s.HashMaxListpackEntries, s.HashMaxListpackValue
	c.SetMaxIntsetEntries = s.SetMaxIntsetEntries
	c.ZSetMaxListpackEntries, c.ZSetMaxListpackValue = s.ZSetMaxListpackEntries, s.ZSetMaxListpackValue
	c.LFU, c.LFULogFactor, c.LFUDecayTime = s.LFU, s.LFULogFactor, s.LFUDecayTime
}

// valid reports whether s is within bounds every command handles
// (CONFIG SET keeps tighter ones: proto-max-bulk-len is 1mb at least; an
// engine embedded in tests may set less).
func (s *ApplySettings) valid() bool {
	return s.ProtoMaxBulkLen >= 1 && s.HashMaxListpackEntries >= 0 && s.HashMaxListpackValue >= 0 &&
		s.SetMaxIntsetEntries >= 0 && s.ZSetMaxListpackEntries >= 0 && s.ZSetMaxListpackValue >= 0 &&
		s.LFULogFactor >= 0 && s.LFULogFactor <= math.MaxInt32 && s.LFUDecayTime >= 0 && s.LFUDecayTime <= math.MaxInt32
}

// Replicator is the replication layer as the engine sees it. Its methods
// are called on the command goroutine and never block.
type Replicator interface {
	// Propose queues op for the log. The engine learns the outcome through
	// ApplyEntry (committed) or ProposalsFailed.
	Propose(op Op)
	// Flush sends the ops queued so far as one log entry. The engine calls
	// it once per loop iteration (FlushOutputs), so the ops of every
	// pipeline handled in one iteration share an entry.
	Flush()
	// ConfirmLeadership asks the replication layer to check, with a quorum,
	// that this node still leads; it then calls Engine.ReadsConfirmed(gen)
	// on the command goroutine (or Engine.SetLeader(false) if it does not).
	ConfirmLeadership(gen uint64)
}

// Forwarder sends commands a follower cannot run to the leader (the
// replication layer's forward option). Its methods never block.
type Forwarder interface {
	// Forward runs cmds for client on the leader at addr (database db,
	// protocol proto), on a connection of the client's own, and calls done
	// on the command goroutine with the raw reply of the last one and the
	// connection's number (unique to the forwarder, never 0). A
	// transaction that needs the keys WATCHed on connection watchConn (0
	// for none) is not sent on any other: its reply is then EXEC's nil.
	Forward(client int64, addr string, db, proto int, cmds [][][]byte, watchConn uint64, done func(reply []byte, conn uint64, err error))
	// DropClient closes the client's connection to the leader.
	DropClient(client int64)
}

type replState struct {
	r       Replicator
	flushed bool // nothing proposed since the last Flush
	fwd     Forwarder
	origin  uint64
	seq     uint64
	// pending maps this process's ops in flight to the client waiting.
	pending map[uint64]*Client
	// inflight counts this process's ops proposed and not yet applied or
	// failed (WATCH waits for zero).
	inflight int
	// leader is set while this node leads and has applied every entry of
	// earlier terms: only then does it serve commands.
	leader   bool
	applying bool
	// inApply mirrors applying for other goroutines (Engine.InApply).
	inApply atomic.Bool
	// apply is the internal client ops from elsewhere run as.
	apply *Client
	clock *replClock
	pcg   *rand.PCG
	// rand is Engine.Rand while an entry applies: it draws from pcg,
	// seeded per entry (a rand.Rand holds no state of its own).
	rand *rand.Rand
	// own is the node's generator while Engine.Rand is the entry's
	// (nodeRand).
	own *rand.Rand
	// appliedIndex is the log index of the last entry applied (or of
	// the snapshot restored): the state SAVE writes.
	appliedIndex uint64
	// lastTime is the newest entry time applied; a new leader's clock
	// starts there, so time never runs backwards across a failover.
	lastTime int64
	// members is the member registry (members.go): member ID to client
	// address.
	members map[string]string
	// Linearizable reads: a batch that arrived after round readStarted
	// began may read once round readStarted+1 or later is confirmed.
	readStarted   uint64
	readConfirmed uint64
	readWaiters   []*Client
	// execWaiters wait, with a WATCHed transaction, for inflight == 0.
	execWaiters []*Client
	// expiring holds keys proposed for expiry and not applied yet.
	expiring map[blockKey]struct{}
	// stepsLeft is what the op being applied has left of its scripts'
	// step budget (Ctx.stepBudget).
	stepsLeft uint64
}

// replClient is a client's replication state.
type replClient struct {
	// readNeed is the confirmation round the current batch's reads need.
	readNeed uint64
	// retrying is set while a blocked client's command is proposed again
	// (the client stays parkBlocked); retrySeq is that op's.
	retrying bool
	retrySeq uint64
	// lastIndex is the log index of the entry that applied the client's
	// last op (WAIT).
	lastIndex uint64
	// fwdHeld: the command forwarded to the leader may wait there any
	// time (BLPOP, WAIT): the client is held (its disconnect is seen,
	// and DropClient ends the wait on the leader).
	fwdHeld bool
}

// replClock is the engine's clock on a replicated server: the entry's time
// while an entry is applied, else the system clock but never earlier than
// the newest entry applied.
type replClock struct {
	base  store.Clock
	fixed int64 // Unix ms while applying, else 0
	floor int64
}

func (c *replClock) Now() time.Time {
	if c.fixed != 0 {
		return time.UnixMilli(c.fixed)
	}
	t := c.base.Now()
	if t.UnixMilli() < c.floor {
		return time.UnixMilli(c.floor)
	}
	return t
}

// enableReplication makes the engine replicated through r (New). origin
// must be unique to this process. The node starts as a follower.
func (e *Engine) enableReplication(r Replicator, origin uint64) {
	e.Config.SetClustered()
	pcg := rand.NewPCG(origin, 0)
	e.repl = &replState{
		r:        r,
		origin:   origin,
		pending:  map[uint64]*Client{},
		clock:    &replClock{base: e.Clock},
		pcg:      pcg,
		rand:     rand.New(pcg),
		expiring: map[blockKey]struct{}{},
		members:  map[string]string{},
	}
	e.Clock = e.repl.clock
	e.repl.apply = e.NewClient(nil)
	e.repl.apply.Authenticated = true
}

// Replicated reports whether the engine is replicated.
func (e *Engine) Replicated() bool { return e.repl != nil }

// IsLeader reports whether this node leads and serves commands.
func (e *Engine) IsLeader() bool { return e.repl != nil && e.repl.leader }

// LastEntryTime is the time of the newest entry applied (Unix ms).
func (e *Engine) LastEntryTime() int64 {
	if e.repl == nil {
		return 0
	}
	return e.repl.lastTime
}

// AppliedIndex is the log index of the last entry applied to the
// keyspace, or of the snapshot it was restored from.
func (e *Engine) AppliedIndex() uint64 {
	if e.repl == nil {
		return 0
	}
	return e.repl.appliedIndex
}

// SetAppliedIndex records the index of a restored snapshot.
func (e *Engine) SetAppliedIndex(i uint64) {
	if e.repl != nil {
		e.repl.appliedIndex = i
	}
}

// SetLastEntryTime restores the newest entry time (from a snapshot).
func (e *Engine) SetLastEntryTime(ms int64) {
	if e.repl != nil && ms > e.repl.lastTime {
		e.repl.lastTime = ms
		e.repl.clock.floor = ms
	}
}

// SetLeader tells the engine whether this node leads. The replication
// layer calls it with true once the node leads and has applied every entry
// committed before (a barrier), with false as soon as it stops leading.
func (e *Engine) SetLeader(leader bool) {
	rs := e.repl
	if rs == nil || rs.leader == leader {
		return
	}
	rs.leader = leader
	if leader {
		// Keys due while following were never taken from the deadline
		// heaps' point of view of this leader: rebuild them once.
		for _, db := range e.DBs {
			db.RebuildDeadlines()
		}
		clear(rs.expiring)
		return
	}
	// Clients blocked here lose their wait, as on a Redis master turned
	// replica; reads and WATCHed EXECs run again and are redirected.
	for _, cl := range e.clients {
		if cl.park == parkBlocked {
			ctx := e.writerFor(cl)
			ctx.W.Error(ErrUnblockedRole)
			e.countError([]byte(ErrUnblockedRole))
			e.unblock(cl)
		}
	}
	e.releaseWaiters(&rs.readWaiters, parkReadRound)
	e.releaseWaiters(&rs.execWaiters, parkBehindExec)
	clear(rs.expiring)
}

// releaseWaiters lets the clients of list, parked as kind, run again.
func (e *Engine) releaseWaiters(list *[]*Client, kind parkKind) {
	for i, cl := range *list {
		(*list)[i] = nil
		if cl.freed || cl.park != kind {
			continue
		}
		e.unpark(cl, kind)
		e.resumeLater(cl)
	}
	*list = (*list)[:0]
}

// resumeLater schedules cl's pipeline to continue (from FlushOutputs).
func (e *Engine) resumeLater(cl *Client) {
	b := &e.blocking
	if !cl.blk.queued && !cl.freed {
		cl.blk.queued = true
		b.resume = append(b.resume, cl)
	}
}

// replKind classifies a command for the replication gate.
type replKind uint8

const (
	replLocal replKind = iota // runs here, reads nothing replicated
	replRead                  // reads the keyspace: needs a live leader
	replWrite                 // becomes an op
	replExec                  // EXEC: depends on the queue
)

// replClass is spec's class for the replication gate (Spec.Repl).
func replClass(spec *Spec) replKind { return spec.repl }

// replGate runs on the leader (and followers) for every client command
// that passed the other gates, just before it would execute. It reports
// whether the command was taken over (proposed, parked, redirected).
func (c *Ctx) replGate(spec *Spec, args [][]byte) bool {
	e, rs, cl := c.E, c.E.repl, c.C
	kind := replClass(spec)
	if !rs.leader && rs.fwd != nil && kind == replExec && cl.multi.active && !cl.multi.failed && len(cl.multi.watched) > 0 {
		// The keys were WATCHed here while this node led (a forwarding
		// follower forwards WATCH): the leader cannot check them, and
		// forwarding the transaction would run it unchecked. It aborts
		// as if they were touched; the client retries, and its WATCH
		// is forwarded from now on.
		cl.multi.dirty = true
		return false
	}
	if rs.leader && kind == replExec && cl.multi.fwdWatch != 0 && cl.multi.active {
		// The keys were WATCHed on the leader of then, through this
		// node: this one cannot check them.
		cl.multi.dirty = true
		return false
	}
	if !rs.leader && rs.fwd != nil && c.forward(spec, args, kind) {
		return true
	}
	if kind == replLocal {
		return false
	}
	if kind == replExec {
		kind = e.execClass(cl)
		if kind == replLocal {
			return false
		}
	}
	if len(rs.execWaiters) > 0 && kind != replRead && rs.leader {
		// A WATCHed EXEC waits for the ops in flight to drain: writes
		// that come after it wait behind it.
		e.park(cl, parkBehindExec)
		rs.execWaiters = append(rs.execWaiters, cl)
		return true
	}
	if !rs.leader {
		if kind == replRead && (e.Config.ReadMode == config.ReadStale || cl.Readonly) {
			return false
		}
		c.rejectFor(spec, c.notLeaderError(spec, args))
		return true
	}
	if spec.LeaderGate != nil && kind == replWrite {
		return spec.LeaderGate(c, args)
	}
	switch kind {
	case replRead:
		if e.Config.ReadMode != config.ReadLinearizable || cl.repl.readNeed <= rs.readConfirmed {
			return false
		}
		e.park(cl, parkReadRound)
		rs.readWaiters = append(rs.readWaiters, cl)
		if rs.readStarted < cl.repl.readNeed {
			rs.readStarted = cl.repl.readNeed
			rs.r.ConfirmLeadership(cl.repl.readNeed)
		}
		return true
	case replWatchedExec:
		if rs.inflight > 0 {
			e.park(cl, parkBehindExec)
			rs.execWaiters = append(rs.execWaiters, cl)
			return true
		}
		if cl.multi.dirty || c.watchedKeyExpired() {
			return false // EXEC answers nil here; nothing to replicate
		}
		e.propose(cl, OpExec, cl.multi.queue)
		return true
	case replExecOp:
		e.propose(cl, OpExec, cl.multi.queue)
		return true
	}
	e.propose(cl, OpCommand, [][][]byte{copyArgs(args)})
	return true
}

const (
	replWatchedExec replKind = iota + 10
	replExecOp
)

// execClass classifies EXEC by its queue.
func (e *Engine) execClass(cl *Client) replKind {
	if !cl.multi.active || cl.multi.failed || cl.multi.dirty {
		return replLocal // an error or nil reply, nothing runs
	}
	writes := false
	for _, q := range cl.multi.queue {
		if s := LookupArgs(q); s != nil && replClass(s) == replWrite {
			writes = true
		}
	}
	switch {
	case !writes:
		return replRead
	case len(cl.multi.watched) > 0:
		return replWatchedExec
	}
	return replExecOp
}

func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}

// propose hands the client's op to the replication layer and parks the
// client until it is applied.
func (e *Engine) propose(cl *Client, kind OpKind, args [][][]byte) {
	rs := e.repl
	rs.seq++
	rs.pending[rs.seq] = cl
	rs.inflight++
	e.park(cl, parkProposed)
	op := Op{Kind: kind, Origin: rs.origin, Seq: rs.seq, DB: cl.DB, Proto: cl.W.Proto, Args: args, OOM: e.preCommandOOM()}
	if st := applySettingsOf(e.Config); st != DefaultApplySettings {
		op.Settings = &st
	}
	rs.propose(op)
}

// notLeaderError is the reply of a node that cannot run a command now:
// MOVED to the leader (with the first key's slot, 0 for a keyless command
// such as PUBLISH), or CLUSTERDOWN while no leader serves.
func (c *Ctx) notLeaderError(spec *Spec, args [][]byte) string {
	if msg := c.Redirect(spec, args); msg != "" {
		return msg
	}
	return c.E.movedToLeader()
}

// movedToLeader is MOVED to the leader, or CLUSTERDOWN while none other
// is known.
func (e *Engine) movedToLeader() string {
	if e.cluster != nil {
		if l, ok := e.cluster.Leader(); ok && !l.Self && l.ClientAddr != "" {
			return "MOVED 0 " + l.ClientAddr
		}
	}
	return ErrClusterDown
}

// ReadsConfirmed is called by the replication layer when the leadership
// round gen was confirmed: reads waiting for it run.
func (e *Engine) ReadsConfirmed(gen uint64) {
	rs := e.repl
	if rs == nil || !rs.leader {
		return
	}
	if gen > rs.readConfirmed {
		rs.readConfirmed = gen
	}
	keep := rs.readWaiters[:0]
	for _, cl := range rs.readWaiters {
		if cl.freed || cl.park != parkReadRound {
			continue
		}
		if cl.repl.readNeed <= rs.readConfirmed {
			e.unpark(cl, parkReadRound)
			e.resumeLater(cl)
			continue
		}
		keep = append(keep, cl)
	}
	for i := len(keep); i < len(rs.readWaiters); i++ {
		rs.readWaiters[i] = nil
	}
	rs.readWaiters = keep
	if len(keep) > 0 && rs.readStarted <= rs.readConfirmed {
		rs.readStarted = rs.readConfirmed + 1
		rs.r.ConfirmLeadership(rs.readStarted)
	}
}

// stampBatch records, for a pipeline that just arrived, which leadership
// confirmation its reads need: one that started after it arrived.
func (e *Engine) stampBatch(cl *Client) {
	if rs := e.repl; rs != nil {
		cl.repl.readNeed = rs.readStarted + 1
	}
}

// ProposalsFailed tells the engine that ops of this process were not
// committed (leadership was lost first). Their clients get an error; should
// an op still be committed later by another leader, it is applied as
// anyone else's.
func (e *Engine) ProposalsFailed(seqs []uint64) { e.proposalsFailed(seqs, ErrLeadershipLost) }

// ProposalsRefused tells the engine that ops of this process were
// committed in a log entry that no node could decode, so none applied
// them. Their clients get an error.
func (e *Engine) ProposalsRefused(seqs []uint64) { e.proposalsFailed(seqs, ErrBadOp) }

func (e *Engine) proposalsFailed(seqs []uint64, msg string) {
	rs := e.repl
	for _, seq := range seqs {
		cl, ok := rs.pending[seq]
		if !ok {
			continue
		}
		delete(rs.pending, seq)
		rs.inflight--
		e.answerProposal(cl, msg)
	}
	e.execWaitersCheck()
}

// ApplyEntry applies one committed log entry: the member registry's
// records first, then ops in order, at time now (Unix ms), with
// randomness from seed. index is the entry's log index.
func (e *Engine) ApplyEntry(index uint64, now int64, seed uint64, members []Member, ops []Op) {
	rs := e.repl
	rs.applyMembers(members)
	if now < rs.lastTime {
		now = rs.lastTime // never backwards, whatever the leader's clock
	}
	rs.lastTime = now
	rs.appliedIndex = index
	rs.clock.floor = now
	rs.clock.fixed = now
	rs.applying = true
	rs.inApply.Store(true)
	rs.pcg.Seed(seed, index)
	saved := e.Rand
	rs.own = saved
	e.Rand = rs.rand
	// Each op applies with the settings its leader gave it, this node's
	// own are put back after.
	own := applySettingsOf(e.Config)
	for i := range ops {
		if st := ops[i].Settings; st != nil {
			setApplySettings(e.Config, st)
		} else {
			setApplySettings(e.Config, &DefaultApplySettings)
		}
		rs.stepsLeft = luaengine.ReplicatedMaxSteps
		e.applyOp(index, now, &ops[i])
	}
	setApplySettings(e.Config, &own)
	e.Rand = saved
	rs.own = nil
	rs.applying = false
	rs.inApply.Store(false)
	rs.clock.fixed = 0
	e.execWaitersCheck()
}

// nodeRand is this node's own generator, also while an entry is applied
// (Engine.Rand is then the entry's): for draws whose number depends on
// state only this node has (LFU's counters).
func (e *Engine) nodeRand() *rand.Rand {
	if rs := e.repl; rs != nil && rs.own != nil {
		return rs.own
	}
	return e.Rand
}

// InApply reports, from any goroutine, whether the command goroutine is
// applying a committed entry: work every node does alike, which a change
// of leader cannot spare the cluster.
func (e *Engine) InApply() bool { return e.repl != nil && e.repl.inApply.Load() }

// applyOp applies one op, whatever it holds: an op that is not well
// formed (a corrupt or hostile log entry) is refused, and a panic outside
// the op's command (callAt recovers the command's own) is recovered here,
// the same way on every node. Either way the proposing client, if it is
// on this node and not answered yet, gets an error, and the entry's other
// ops still apply.
func (e *Engine) applyOp(index uint64, now int64, op *Op) {
	rs := e.repl
	var (
		cl       *Client // the client the op runs as
		local    bool    // cl is this node's client that proposed op
		answered bool    // cl's reply was written
	)
	entry := e.calling
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		// A panic in the op's command answers it (as callAt's caller
		// would); one elsewhere is logged.
		e.answerPanic(entry, r, "apply")
		if !local {
			// The proposer may be this node's client still.
			e.refuseOp(op, ErrInternal("apply"))
			cl = rs.apply
		} else if !answered {
			e.answerProposal(cl, ErrInternal("apply"))
		} else {
			e.resumeLater(cl)
		}
		e.resetApplyClient(cl)
	}()
	if why := e.badOp(op); why != "" {
		e.logger().Error("replicated op refused", "index", index, "why", why, "kind", op.Kind, "db", op.DB, "args", panicArgs(opArgs(op)))
		e.refuseOp(op, ErrBadOp)
		return
	}
	if op.Kind == OpExpire {
		e.applyExpire(op, now)
		return
	}
	if op.Origin == rs.origin {
		if c, ok := rs.pending[op.Seq]; ok {
			delete(rs.pending, op.Seq)
			rs.inflight--
			if !c.freed {
				cl, local = c, true
			}
		}
	}
	if !local {
		cl = rs.apply
		cl.DB = op.DB
		cl.W.Proto = op.Proto
		if len(cl.W.B) > 0 {
			cl.W.B = cl.W.B[:0]
		}
	} else {
		cl.repl.lastIndex = index
		if cl.repl.retrying {
			// A blocked client's command proposed again: it leaves its
			// wait and runs; it blocks anew if the key is empty again.
			cl.repl.retrying = false
			cl.blk.keepDeadline = cl.blk.deadline
			e.unblock(cl)
		} else {
			e.unpark(cl, parkProposed)
		}
	}
	e.mem.applyOOM = op.OOM
	switch op.Kind {
	case OpCommand:
		answered = true // from here on, callAt answers
		e.callAt(cl, op.Args[0], now, 0)
	case OpExec:
		cl.multi.active = true
		cl.multi.failed = false
		cl.multi.dirty = false
		cl.multi.queue = op.Args
		answered = true
		e.callAt(cl, execArgs, now, 0)
	}
	cl.blk.keepDeadline = 0
	if local {
		if cl.Conn != nil && cl.held() {
			// Its op blocked it (BLPOP): its socket is read on, so
			// that its disconnect ends the wait (resumeLater skips a
			// blocked client).
			cl.Conn.Blocked(true)
		}
		e.resumeLater(cl)
	} else {
		e.resetApplyClient(cl)
	}
}

// resetApplyClient makes the internal client ops from other nodes run as
// ready for the next op: no output, no transaction (it never parks:
// NoBlock, and apply passes no gate). A local client keeps its state (it
// may block; its transaction ended with EXEC).
func (e *Engine) resetApplyClient(cl *Client) {
	if cl != e.repl.apply {
		cl.blk.keepDeadline = 0
		return
	}
	cl.W.B = cl.W.B[:0]
	e.DiscardTransaction(cl)
	cl.blk.keepDeadline = 0
}

// badOp says what makes op impossible to apply, "" if nothing. Only the
// op's shape is checked: commands check their own arguments.
func (e *Engine) badOp(op *Op) string {
	if op.DB < 0 || op.DB >= len(e.DBs) {
		return "no such database"
	}
	switch op.Kind {
	case OpCommand:
		if len(op.Args) != 1 || len(op.Args[0]) == 0 {
			return "not one command"
		}
	case OpExec:
		for _, q := range op.Args {
			if len(q) == 0 {
				return "an empty command in a transaction"
			}
		}
	case OpExpire:
		if len(op.Args) != 1 {
			return "not one list of keys"
		}
		return ""
	default:
		return "unknown kind"
	}
	if op.Proto != 2 && op.Proto != 3 {
		return "unknown protocol"
	}
	if op.Settings != nil && !op.Settings.valid() {
		return "settings out of bounds"
	}
	return ""
}

// opArgs is op's first command, for the log.
func opArgs(op *Op) [][]byte {
	if len(op.Args) > 0 {
		return op.Args[0]
	}
	return nil
}

// refuseOp answers op's client with msg if it is this node's and waits
// for op.
func (e *Engine) refuseOp(op *Op, msg string) {
	rs := e.repl
	if op.Origin != rs.origin || op.Seq == 0 {
		return
	}
	if cl, ok := rs.pending[op.Seq]; ok {
		delete(rs.pending, op.Seq)
		rs.inflight--
		e.answerProposal(cl, msg)
	}
}

// answerProposal answers a client whose op was taken from pending and
// did not run (or ran no further than its own recovery) with error msg,
// and lets its pipeline go on.
func (e *Engine) answerProposal(cl *Client, msg string) {
	if cl.freed {
		return
	}
	if cl.repl.retrying {
		cl.repl.retrying = false
		return // still blocked: the step-down or its timeout answers it
	}
	e.unpark(cl, parkProposed)
	if cl.multi.active {
		e.DiscardTransaction(cl)
	}
	e.Writer(cl).Error(msg)
	e.countError([]byte(msg))
	e.resumeLater(cl)
}

var execArgs = [][]byte{[]byte("EXEC")}

// applyExpire removes the op's keys that are expired at now.
func (e *Engine) applyExpire(op *Op, now int64) {
	if op.DB < 0 || op.DB >= len(e.DBs) {
		return
	}
	db := e.DBs[op.DB]
	for _, k := range op.Args[0] {
		key := string(k)
		delete(e.repl.expiring, blockKey{db: op.DB, key: key})
		if db.DeleteIfExpired(key, now) {
			e.keyExpired(op.DB, key)
		} else {
			// Renewed since TakeDue took its heap item: file it again.
			db.Refile(key)
		}
	}
}

// replExpire is active expiry on a replicated server: the leader proposes
// the keys due, followers only drop stale deadlines.
func (e *Engine) replExpire(now int64) {
	rs := e.repl
	const budget = 2000
	left := budget
	for i, db := range e.DBs {
		if left <= 0 {
			break
		}
		keys := db.TakeDue(now, left)
		left -= len(keys)
		if !rs.leader || len(keys) == 0 {
			continue
		}
		args := make([][]byte, 0, len(keys))
		for _, k := range keys {
			bk := blockKey{db: i, key: k}
			if _, ok := rs.expiring[bk]; ok {
				continue
			}
			rs.expiring[bk] = struct{}{}
			args = append(args, []byte(k))
		}
		if len(args) > 0 {
			rs.propose(Op{Kind: OpExpire, Origin: rs.origin, DB: i, Args: [][][]byte{args}})
		}
	}
	e.expireBacklog = left <= 0
}

// execWaitersCheck lets WATCHed EXECs run once no op is in flight.
func (e *Engine) execWaitersCheck() {
	rs := e.repl
	if rs.inflight == 0 && len(rs.execWaiters) > 0 {
		e.releaseWaiters(&rs.execWaiters, parkBehindExec)
	}
}

// retryBlocked proposes a blocked client's command again because a key it
// waits on is ready (replicated servers never serve it in place: the
// followers have no such client).
func (e *Engine) retryBlocked(cl *Client) {
	if cl.repl.retrying || cl.blk.args == nil {
		return
	}
	cl.repl.retrying = true
	if cl.blk.heapIdx >= 0 {
		// No timeout while the retry is in flight: its apply either
		// serves the client or blocks it again with the same deadline.
		heap.Remove(&e.blocking.timeouts, cl.blk.heapIdx)
	}
	rs := e.repl
	rs.seq++
	rs.pending[rs.seq] = cl
	rs.inflight++
	cl.repl.retrySeq = rs.seq
	rs.propose(Op{Kind: OpCommand, Origin: rs.origin, Seq: rs.seq, DB: cl.blk.db, Proto: cl.W.Proto, Args: [][][]byte{cl.blk.args}})
}

// disownRetry makes the op retryBlocked proposed for cl no longer cl's:
// cl left its wait another way (CLIENT UNBLOCK, a step-down, a panic) and
// was answered, so the op, should it still apply, runs as the internal
// client, as on every other node, instead of answering cl a second time.
func (e *Engine) disownRetry(cl *Client) {
	cl.repl.retrying = false
	if _, ok := e.repl.pending[cl.repl.retrySeq]; ok {
		e.repl.pending[cl.repl.retrySeq] = disowned
	}
}

// disowned stands in rs.pending for a client that no longer waits for its
// op: freed, so the op is applied as anyone else's and answers nobody.
var disowned = &Client{freed: true}

// Replicated reports whether the command runs as part of a replicated op
// (directly, inside EXEC or inside a script), where every node must make
// the same choices: random picks come from the entry's seed and never
// depend on a hash table's layout.
func (c *Ctx) Replicated() bool { return c.E.repl != nil && c.E.repl.applying }

// isReplica reports whether this node is a cluster node that does not lead
// (Redis's server.masterhost: WAIT and WAITAOF refuse to run there).
func (e *Engine) isReplica() bool { return e.repl != nil && !e.repl.leader }

// LastWriteIndex is the log index of the entry that applied cl's last op.
func (c *Client) LastWriteIndex() uint64 { return c.repl.lastIndex }

// forward sends a command this follower cannot run to the leader and parks
// the client until the reply comes back. It reports false when the command
// runs here (a local command, a read this node may serve, no leader known).
func (c *Ctx) forward(spec *Spec, args [][]byte, kind replKind) bool {
	e, rs, cl := c.E, c.E.repl, c.C
	var cmds [][][]byte
	switch {
	case kind == replExec:
		if !cl.multi.active || cl.multi.failed || cl.multi.dirty {
			// Answered here: EXECABORT, or nil for a transaction whose
			// WATCHed keys were touched while this node led or since
			// (touching unwatches them, so replGate's check of the
			// watched keys no longer sees it).
			return false
		}
		cmds = make([][][]byte, 0, len(cl.multi.queue)+2)
		cmds = append(cmds, [][]byte{[]byte("MULTI")})
		cmds = append(cmds, cl.multi.queue...)
		cmds = append(cmds, [][]byte{[]byte("EXEC")})
	case kind == replLocal:
		if spec.Repl != ReplLeader || cl.multi.active {
			return false // WATCH inside MULTI is refused here
		}
		// WATCH, WAIT...: the leader's connection watches, and counts
		// the replicas holding the client's last write.
		cmds = [][][]byte{copyArgs(args)}
	case kind == replRead && (e.Config.ReadMode == config.ReadStale || cl.Readonly):
		return false
	default:
		cmds = [][][]byte{copyArgs(args)}
	}
	l, ok := e.cluster.Leader()
	if !ok || l.Self || l.ClientAddr == "" {
		return false // answered CLUSTERDOWN by the caller
	}
	var watchConn uint64
	watch := spec.Fwd == FwdWatch
	// The database a SELECT in the transaction moves to, the protocol a
	// HELLO there switches to.
	execDB, execProto := -1, 0
	switch {
	case kind == replExec:
		for _, q := range cl.multi.queue {
			s := LookupArgs(q)
			if s == nil || len(q) < 2 {
				continue
			}
			n, ok := redisnum.ParseInt(q[1])
			switch {
			case s.Fwd == FwdSelect && ok && n >= 0 && n < int64(len(e.DBs)):
				execDB = int(n)
			case s.Fwd == FwdHello && ok && (n == 2 || n == 3):
				execProto = int(n)
			}
		}
		// The leader's connection ends the WATCH: EXEC's, or the
		// transaction is not sent.
		watchConn, cl.multi.fwdWatch = cl.multi.fwdWatch, 0
		e.DiscardTransaction(cl)
	case spec.Fwd == FwdUnwatch:
		// Also the keys WATCHed here while this node led.
		e.unwatchAll(cl)
		cl.multi.dirty = false
		cl.multi.fwdWatch = 0
	}
	// The reply mode when the command came, as callAt's (the client is
	// parked until the reply, and sends nothing meanwhile).
	quiet := cl.ReplyMode != ReplyOn
	cl.repl.fwdHeld = spec.Flags&Blocking != 0 || spec.Fwd == FwdWaits
	e.park(cl, parkForwarded)
	rs.fwd.Forward(cl.ID, l.ClientAddr, cl.DB, cl.W.Proto, cmds, watchConn, func(reply []byte, conn uint64, err error) {
		if cl.freed || cl.park != parkForwarded {
			return
		}
		if watch && err == nil && len(reply) > 0 && reply[0] != '-' {
			if w := cl.multi.fwdWatch; w != 0 && w != conn {
				// Keys WATCHed before are gone with their connection.
				cl.multi.dirty = true
			}
			cl.multi.fwdWatch = conn
		}
		if err == nil && len(reply) > 1 && reply[0] == '*' && reply[1] != '-' {
			// The transaction ran: its SELECT moved the client, its
			// HELLO switched its protocol, as in Redis.
			if execDB >= 0 {
				cl.DB = execDB
			}
			if execProto != 0 {
				cl.W.Proto = execProto
			}
		}
		e.unpark(cl, parkForwarded)
		cl.repl.fwdHeld = false
		w := e.Writer(cl)
		if quiet {
			// CLIENT REPLY OFF/SKIP; SKIP ends with this command (its
			// endCall returned before that, the client parked).
			e.scratch.Reset()
			w = &e.scratch
			if cl.ReplyMode == ReplySkip {
				cl.ReplyMode = ReplyOn
			}
		}
		if err != nil {
			w.Error("ERR forwarding to the leader failed: " + err.Error())
		} else {
			w.Raw(reply)
		}
		e.resumeLater(cl)
	})
	return true
}

func (rs *replState) propose(op Op) {
	rs.r.Propose(op)
	rs.flushed = false
}

// flushProposals hands the ops proposed in this loop iteration to the log.
func (e *Engine) flushProposals() {
	if rs := e.repl; rs != nil && !rs.flushed {
		rs.flushed = true
		rs.r.Flush()
	}
}

// sortForScript makes the reply of a command whose order follows a hash
// table's layout the same on every node, for a script applied from the
// log: its elements (field/value pairs for HGETALL) are sorted, as Redis
// before 7 did for scripts (CMD_SORT_FOR_SCRIPT). A script that writes by
// what such a reply lists first then writes the same on every node.
func sortForScript(spec *Spec, reply []byte) []byte {
	group := 1
	switch spec.ScriptSort {
	case SortElements:
	case SortPairs:
		group = 2
	default:
		return reply
	}
	if len(reply) == 0 || (reply[0] != '*' && reply[0] != '~' && reply[0] != '%') {
		return reply
	}
	r := bufio.NewReader(bytes.NewReader(reply))
	head, err := r.ReadSlice('\n')
	if err != nil {
		return reply
	}
	head = append([]byte(nil), head...)
	var elems [][]byte
	for {
		var el []byte
		for i := 0; i < group; i++ {
			if el, err = resp.ReadReply(r, el); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
		elems = append(elems, el)
	}
	slices.SortFunc(elems, bytes.Compare)
	out := append(reply[:0:0], head...)
	for _, el := range elems {
		out = append(out, el...)
	}
	return out
}
