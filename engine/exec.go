package engine

import (
	"strings"
	"unsafe"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/resp"
)

// Exec is the one dispatcher. Client commands, commands queued by
// MULTI/EXEC, redis.call from Lua and Raft apply all run through it. It
// looks the command up, checks arity and the gates that depend on the
// calling context, and calls the handler.
func Exec(c *Ctx, args [][]byte) {
	spec := Lookup(args[0])
	if spec != nil && spec.ClusterOnly && c.E.cluster == nil {
		spec = nil
	}
	if spec == nil {
		if c.InScript {
			c.W.Error(ErrScriptUnknownCommand)
			return
		}
		c.reject(ErrUnknownCommand(args))
		return
	}
	if len(spec.Sub) > 0 && len(args) >= 2 {
		sub := spec.Subcommand(args[1])
		if sub == nil {
			if c.InScript {
				c.W.Error(ErrScriptUnknownCommand)
				return
			}
			c.reject(ErrUnknownSubcommand(spec.Name, args[1]))
			return
		}
		spec = sub
	}
	c.looked = spec
	if !spec.CheckArity(len(args)) {
		if c.InScript {
			c.W.Error(ErrScriptWrongArgs)
			return
		}
		c.rejectFor(spec, ErrWrongArgs(spec.FullName()))
		return
	}
	if spec.Flags&Protected != 0 && !c.InScript && !c.InExec && !c.Applying &&
		!config.ProtectedActionAllowed(c.E.Config.EnableDebugCommand, c.C != nil && c.C.Local) {
		// Right after the arity check, before AUTH, as processCommand.
		c.rejectFor(spec, ErrDebugNotAllowed)
		return
	}
	if c.InScript {
		if !c.scriptGate(spec) {
			return
		}
	} else if !c.InExec && !c.Applying {
		if spec.Flags&NoAuth == 0 && c.E.authRequired(c.C) {
			c.rejectFor(spec, ErrNoAuth)
			return
		}
		if c.C.multi.active {
			if spec.Flags&NoMulti != 0 {
				c.reject(ErrCommandInMulti)
				return
			}
		}
		if c.E.Config.Maxmemory != 0 && c.oomGate(spec, args) {
			return
		}
		if c.C.sub.count() > 0 && c.C.W.Proto == 2 && !spec.Subscribed {
			c.rejectFor(spec, sprintf(ErrPubSubContext, spec.FullName()))
			return
		}
		if s := c.E.scripting; s != nil && s.busy && spec.Flags&AllowBusy == 0 {
			c.rejectFor(spec, s.busyError())
			return
		}
		if c.E.srv.pause != pauseOff && c.E.pausedFor(c.C, spec) {
			c.E.park(c.C, parkPaused)
			return
		}
		if c.C.multi.active && !spec.Unqueued {
			c.queueMulti(args)
			c.E.feedMonitors(c, spec, args)
			return
		}
	}
	if c.E.repl != nil && !c.InScript && !c.InExec && !c.Applying && c.replGate(spec, args) {
		return
	}
	if spec.Flags&ReadOnly != 0 && c.E.tracking.clients > 0 {
		c.trackingRememberKeys(spec, args) // Redis does it after the command; reads change nothing
	}
	c.Spec = spec
	if !c.InExec && c.E.monitors.count > 0 {
		if spec.Flags&(SkipMonitor|Admin) == 0 {
			spec.Fn(c, args)
			c.E.feedMonitors(c, spec, args)
			return
		}
		if spec.Script != ScriptNone {
			// Shown before the commands the script runs, as Redis does.
			c.E.feedMonitors(c, spec, args)
		}
	}
	spec.Fn(c, args)
}

// countReplyError counts the command's reply, written to w from mark, if
// it is an error (afterErrorReply), unless the command counted its errors
// itself (scripts).
func (c *Ctx) countReplyError(w *resp.Writer, mark int) {
	if len(w.B) > mark && w.B[mark] == '-' && !c.errCounted {
		c.E.countError(w.B[mark+1:])
	}
}

// reject answers a command refused before it ran; inside MULTI this also
// makes EXEC fail with EXECABORT, as Redis's flagTransaction does.
func (c *Ctx) reject(msg string) {
	if c.C.multi.active && !c.InScript && !c.InExec {
		c.C.multi.failed = true
	}
	c.W.Error(msg)
}

// rejectFor is reject for a known command. A refused EXEC discards the
// transaction and says why, as Redis's rejectCommand/execCommandAbort
// ("EXECABORT Transaction discarded because of: <error without ERR>").
func (c *Ctx) rejectFor(spec *Spec, msg string) {
	if spec.Txn == TxnExec && !c.InScript && !c.InExec {
		c.E.DiscardTransaction(c.C)
		c.W.Error(ErrExecAbortBecause + strings.TrimPrefix(msg, "ERR "))
		return
	}
	c.reject(msg)
}

// scriptGate applies the rules for commands called from a script.
func (c *Ctx) scriptGate(spec *Spec) bool {
	if spec.Flags&NoScript != 0 {
		c.W.Error(ErrNoScriptCommand)
		return false
	}
	if c.ScriptRO && spec.Flags&Write != 0 {
		c.W.Error(ErrWriteInReadOnly)
		return false
	}
	if spec.Flags&Write != 0 && c.E.scripting.nodeLocal {
		// Applied from a cluster's log after a NodeLocal command: what
		// the script would write may differ between the nodes, and every
		// node refuses it alike (settleScript has the rest).
		c.W.Error(ErrWriteAfterNodeLocal)
		return false
	}
	if spec.Flags&DenyOOM != 0 && c.E.scripting.oomDenies() {
		// scriptVerifyOOM: judged by the state the script started in,
		// until its first write.
		c.W.Error(ErrOOM)
		return false
	}
	return true
}

// NewCtx returns a context for running a command as client cl.
func (e *Engine) NewCtx(cl *Client, w *resp.Writer, now int64) *Ctx {
	return &Ctx{E: e, C: cl, W: w, DB: e.DBs[cl.DB], Now: now}
}

// Call runs one client command and records statistics.
func (e *Engine) Call(cl *Client, args [][]byte) {
	var done bool
	defer e.recoverCalls(e.calling, &done)
	e.callAt(cl, args, e.NowMs(), 0)
	done = true
}

// callAt is Call with the time already read: the commands of one pipeline
// share one clock reading (they run within microseconds of each other).
//
// start is a monotonic reading (monoNanos) taken just before, or 0 to take
// one; callAt returns the reading taken when the command finished, which
// runPending passes as the next command's start, so timing a pipeline
// (INFO commandstats usec) costs one clock reading per command. It returns
// 0 when other clients' commands ran after this one (blocked clients
// served), so that their time is not the next command's.
func (e *Engine) callAt(cl *Client, args [][]byte, now, start int64) (end int64) {
	if start == 0 {
		start = monoNanos()
	}
	e.callSeq++
	w := e.Writer(cl)
	mode := cl.ReplyMode
	if mode != ReplyOn {
		e.scratch.Reset()
		e.scratch.Proto = cl.W.Proto
		w = &e.scratch
	}
	// Contexts come from a free list: a Ctx passed to a handler through a
	// function value escapes, and one heap allocation per command showed in
	// every profile. A stack (not one reused Ctx) because a busy script
	// serves other clients from inside its own call.
	// Fields are set one by one: a free Ctx is zero, and a composite
	// literal of the whole struct costs more than the command's lookup.
	ctx := e.getCtx()
	ctx.E, ctx.C, ctx.W, ctx.DB, ctx.Now = e, cl, w, e.DBs[cl.DB], now
	f := &ctx.call
	f.args, f.mark, f.mode, f.start, f.seq = args, len(w.B), mode, start, e.callSeq
	f.prev, f.outer = e.current, e.calling // a busy script serves other clients from inside its call
	e.current = cl
	e.calling = ctx
	if e.repl != nil {
		ctx.Applying = e.repl.applying
		cl.blk.cur = args
	}
	e.callStart()
	Exec(ctx, args)
	return e.endCall(ctx)
}

// callFrame is what callAt keeps in its Ctx for endCall, and for the
// recovery of a panic (recover.go), which finds the command running in
// Engine.calling.
type callFrame struct {
	args  [][]byte
	mark  int // len(w.B) when the command started (see callWriter)
	mode  int // the client's reply mode then
	start int64
	seq   uint64
	prev  *Client // Engine.current before
	outer *Ctx    // Engine.calling before
}

// callWriter is where callAt had ctx's command reply: the client's output,
// or the scratch writer under CLIENT REPLY OFF/SKIP. (ctx.W may have
// changed since: CLIENT REPLY ON, RESET.)
func (e *Engine) callWriter(ctx *Ctx) *resp.Writer {
	if ctx.call.mode != ReplyOn {
		return &e.scratch
	}
	return &ctx.C.W
}

// endCall is the end of callAt once the command returned (or panicked
// and was answered): its statistics, and what runs after every top-level
// command. It returns callAt's result and releases ctx.
func (e *Engine) endCall(ctx *Ctx) (end int64) {
	cl, f := ctx.C, &ctx.call
	e.current, e.calling = f.prev, f.outer
	end = monoNanos()
	ctx.countReplyError(e.callWriter(ctx), f.mark)
	if len(cl.W.B) > replyChunk {
		e.checkOutput(cl, true)
	}
	if cl.park != parkPaused {
		e.countCall(ctx.looked, ctx.Spec != nil, end-f.start)
		if ctx.Spec != nil && cl.park != parkBlocked {
			e.observeCall(ctx, f.args, end-f.start)
		}
	}
	e.trackingAfterCall(cl, ctx.Spec)
	if cl.park.deferred() {
		// CLIENT PAUSE: the command runs again when the pause ends;
		// replication: it runs again later, or its op runs when applied.
		e.putCtx(ctx)
		return end
	}
	cl.LastInteraction = ctx.Now
	if ctx.Spec != nil {
		// Like Redis's call(): refused commands are not counted.
		e.Stats.Commands++
	}
	cl.lastCmd = ctx.looked
	// resetClient: CLIENT REPLY SKIP's effect ends with the command
	// after it, whether that ran or was refused.
	if cl.ReplyMode == ReplySkip {
		cl.ReplyMode = ReplyOn
	}
	if cl.replySkipNext {
		cl.replySkipNext = false
		cl.ReplyMode = ReplySkip
	}
	seq := f.seq
	e.putCtx(ctx)
	e.afterCommand()
	if e.srv.resume {
		e.resumePaused()
	}
	if e.callSeq != seq {
		return 0
	}
	return end
}

// ProcessBatch runs a pipeline of commands from cl in order. done is called
// after their replies were handed to the connection (from FlushOutputs), or
// after the client was freed. If a command blocks, the rest of the pipeline,
// and any later pipeline, waits until the client is unblocked.
func (e *Engine) ProcessBatch(cl *Client, cmds [][][]byte, done func()) {
	if cl.freed {
		e.doneQueue = append(e.doneQueue, done)
		return
	}
	cl.queue = append(cl.queue, batch{cmds: cmds, done: done})
	e.stampBatch(cl)
	if cl.park == parkNone {
		e.runPending(cl)
	} else if cl.Conn != nil && cl.held() {
		cl.Conn.Blocked(true) // it waits behind the blocked command
	}
}

// held reports whether cl waits for something that may take any time (a
// blocking command, CLIENT PAUSE, WAIT, a promised reply), not for its own
// replicated op (parkKind.held), or for a blocking command forwarded to
// the leader.
func (cl *Client) held() bool {
	return cl.park.held() || (cl.park == parkForwarded && cl.repl.fwdHeld)
}

type batch struct {
	cmds [][][]byte
	done func()
}

// Prefetch queues the first keys of a pipeline's commands, run as cl,
// for PrefetchFlush, which brings their keyspace entries into cache
// together: the cache misses of many lookups then overlap instead of
// following each other (the loop gathers the pipelines waiting, prefetches
// them, then runs them). A pipeline of several commands is flushed at
// once.
func (e *Engine) Prefetch(cl *Client, cmds [][][]byte) {
	if cl.DB != e.prefetchDB && len(e.prefetchKeys) > 0 {
		e.PrefetchFlush()
	}
	e.prefetchDB = cl.DB
	for _, args := range cmds {
		if len(e.prefetchKeys) == cap(e.prefetchKeys) {
			e.PrefetchFlush()
		}
		if len(args) < 2 {
			continue
		}
		if s := Lookup(args[0]); s != nil && s.first == 1 {
			e.prefetchKeys = append(e.prefetchKeys, unsafe.String(unsafe.SliceData(args[1]), len(args[1])))
		}
	}
	if len(cmds) >= 4 {
		e.PrefetchFlush()
	}
}

// PrefetchAlone is Prefetch for a pipeline that runs by itself: its keys
// are touched together when it has several commands, and nothing is
// left queued (a lone command's lookup follows at once, with nothing to
// overlap; keys left in the queue would be touched after their commands
// ran, and would keep the connection's buffer they point into).
func (e *Engine) PrefetchAlone(cl *Client, cmds [][][]byte) {
	if len(cmds) >= 4 {
		e.Prefetch(cl, cmds) // flushes a pipeline of 4 or more
	}
}

// PrefetchFlush touches the keys Prefetch queued.
func (e *Engine) PrefetchFlush() {
	if len(e.prefetchKeys) > 0 && e.prefetchDB < len(e.DBs) {
		e.prefetchSink += e.DBs[e.prefetchDB].Touch(e.prefetchKeys)
	}
	clear(e.prefetchKeys)
	e.prefetchKeys = e.prefetchKeys[:0]
}

// runPending runs queued commands until the queue is empty or the client
// blocks. A command that panics is answered with an error and the
// pipeline goes on (recover.go).
func (e *Engine) runPending(cl *Client) {
	for {
		seq := e.callSeq
		if e.runPendingGuarded(cl) || e.callSeq == seq {
			// Done, or a panic outside any command (in the loop's own
			// bookkeeping) that would only repeat: the rest waits for
			// the client's next event.
			return
		}
	}
}

// runPendingGuarded is runPending until a command panics: then it answers
// it and reports false, to be called again for the rest.
func (e *Engine) runPendingGuarded(cl *Client) (done bool) {
	defer e.recoverCalls(e.calling, &done)
	e.runPendingUnguarded(cl)
	return true
}

func (e *Engine) runPendingUnguarded(cl *Client) {
	now := e.NowMs()
	var tick int64 // see callAt
	// base is the queue's array, which the next pipeline reuses once
	// this one is done: a client's queue holds one pipeline most of the
	// time, and a new array for each was garbage for every request.
	base := cl.queue
	for len(cl.queue) > 0 {
		b := &cl.queue[0]
		for len(b.cmds) > 0 && cl.park == parkNone && !cl.freed && !cl.CloseAfterReply && !cl.closeASAP {
			rest := b.cmds
			args := rest[0]
			b.cmds = rest[1:]
			tick = e.callAt(cl, args, now, tick)
			if cl.park.reruns() {
				b.cmds = rest // runs again when the park ends
				break
			}
			e.Stats.NetInputBytes += approxSize(args)
		}
		if cl.park != parkNone && !cl.freed {
			if cl.Conn != nil {
				cl.Conn.Blocked(cl.held())
			}
			return
		}
		e.markDirty(cl)
		e.doneQueue = append(e.doneQueue, b.done)
		cl.queue[0] = batch{}
		cl.queue = cl.queue[1:]
	}
	// Every entry taken was cleared. A long queue (a blocked client's)
	// gives its array back.
	if cap(base) <= 4 {
		cl.queue = base[:0]
	} else {
		cl.queue = nil
	}
}

func approxSize(args [][]byte) int64 {
	n := int64(4)
	for _, a := range args {
		n += int64(len(a)) + 8
	}
	return n
}

// Done runs the completion callbacks of finished batches; FlushOutputs
// calls it after delivering output.
func (e *Engine) runDone() {
	for i, d := range e.doneQueue {
		d()
		e.doneQueue[i] = nil
	}
	e.doneQueue = e.doneQueue[:0]
}

// getCtx returns a zero Ctx.
func (e *Engine) getCtx() *Ctx {
	if n := len(e.ctxFree); n > 0 {
		c := e.ctxFree[n-1]
		e.ctxFree = e.ctxFree[:n-1]
		return c
	}
	return new(Ctx)
}

func (e *Engine) putCtx(c *Ctx) {
	*c = Ctx{}
	e.ctxFree = append(e.ctxFree, c)
}
