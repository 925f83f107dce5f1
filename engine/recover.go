package engine

import (
	"fmt"
	rtdebug "runtime/debug"
	"strconv"

	"github.com/lockkv/lockkv/internal/resp"
)

// Panics in commands.
//
// A Go panic in a command (a bug that some input reaches) costs the client
// that sent the command one error reply, never the node: on a cluster
// every node applies the same log entry, and applies it again from the
// log after a restart, so a panic escaping apply would take every node
// down at every start.
//
// Where panics are recovered. The innermost guard around a command
// answers it with an error and ends it as it would have ended, so its
// caller carries on normally (statistics, reply, the client's next
// command):
//
//   - Top-level commands (Engine.callAt) are recovered once per pipeline,
//     not per command: runPending defers one recover for the commands it
//     runs (Engine.Call for its one, applyOp for the op's command); the
//     normal path pays a flag, not a recover() call. callAt keeps what it
//     needs to end the command in the Ctx (callFrame) and the Ctx in
//     Engine.calling, so the guard finds the command that panicked, answers
//     it, ends it with endCall as callAt would have, and runPending goes
//     on with the rest of the pipeline.
//   - execCommand, for each command of the transaction: EXEC's array keeps
//     its length, the failing command's slot holds the error, the rest run.
//   - scriptCall, for each redis.call/pcall: the script sees an error reply
//     (redis.call raises it, redis.pcall returns it) and unwinds or goes
//     on as it would after any error.
//   - serveKey, for the ServeFunc serving a blocked client.
//   - applyOp, for a panic in apply outside the op's command.
//
// What recovery does (commandPanicked):
//
//   - Logs once, at the point that recovered it: the command's name, its
//     arguments (at most panicLogArgs, each cut to panicLogArgLen bytes),
//     the panic value and the stack.
//   - Drops the output the command wrote to its own writer (a reply cut
//     in the middle would desynchronise the client) and writes
//     ErrInternal(name) instead. Callers then count it as any error reply
//     (errorstats ERR, total_error_replies, a failed call in
//     commandstats).
//   - Puts the client back in a state the engine expects of a client whose
//     command answered: not parked in a blocking command (a ServeFunc
//     would reply a second time), WAIT, or a reply promised for later (it
//     is dropped), a transaction either discarded (EXEC, DISCARD, MULTI
//     panicked) or failed (EXECABORT, as for a command refused while
//     queueing). The running script's state is reset by runScript and
//     fcallCommand themselves (s.finish is deferred). The other parks
//     (CLIENT PAUSE, replication) are set only by Exec's gates, as the last
//     thing Exec does; no handler runs after them, so recovery never meets
//     one. Parking a client already parked panics (Engine.park): such an
//     overlap is recovered here like any other bug.
//
// What the command had changed before it panicked stays changed: there is
// no undo log, and partial effects (keys written, notifications fired,
// WATCH broken) are what Redis would also leave had it survived the same
// bug. On a cluster this is still the same on every node: apply is
// deterministic up to the panic, and recovery reads nothing but the
// command and the engine's state (no clock, no timing, no memory
// addresses; the log line is not state). A panic that depends on
// something nondeterministic would diverge the nodes with or without
// recovery; that is a bug to fix in the handler.
//
// Fatal runtime errors are not panics and cannot be recovered: a Go stack
// overflow (unbounded recursion), running out of memory, concurrent map
// writes. Recursion over client data must be bounded and allocations
// sized by client data capped (proto-max-bulk-len and the like) where
// they happen.

const (
	panicLogArgs   = 32  // arguments logged at most
	panicLogArgLen = 128 // bytes of each argument logged
)

// execGuarded runs Exec as a command of EXEC or a script's redis.call,
// turning a panic in it into an error reply in place of whatever it wrote
// to c.W from mark on. (callAt does the same inline for top-level
// commands.)
func (e *Engine) execGuarded(c *Ctx, args [][]byte, mark int) {
	ran := false
	defer func() {
		if !ran {
			if r := recover(); r != nil {
				e.commandPanicked(c, c.W, args, mark, r)
			}
		}
	}()
	Exec(c, args)
	ran = true
}

// recoverCalls, deferred by whoever runs top-level commands through
// callAt (runPending, Call), answers the command that panicked: the
// innermost callAt started since Engine.calling was entry. *done is set
// when no panic unwinds: the normal path never calls recover().
func (e *Engine) recoverCalls(entry *Ctx, done *bool) {
	if *done {
		return
	}
	if r := recover(); r != nil {
		e.answerPanic(entry, r, "engine")
	}
}

// answerPanic answers the top-level command that panicked with r, if one
// started since Engine.calling was entry, and ends it as callAt would
// have; a panic outside a command (the engine's own code around it) is
// only logged, as where's. It reports whether a command was answered.
func (e *Engine) answerPanic(entry *Ctx, r any, where string) bool {
	ctx := e.calling
	if ctx == entry || ctx == nil {
		e.logPanic(where, nil, r, rtdebug.Stack())
		return false
	}
	// Only the innermost command can be running: a callAt nested in it
	// (a busy script serving other clients) is guarded on its own.
	e.commandPanicked(ctx, e.callWriter(ctx), ctx.call.args, ctx.call.mark, r)
	e.endCall(ctx)
	e.calling = entry
	return true
}

// serveGuarded runs a blocked client's ServeFunc as execGuarded runs a
// command. After a panic it reports the key not deleted: serveKey looks
// it up again before serving the next client.
func (e *Engine) serveGuarded(c *Ctx, serve ServeFunc, key []byte) (deleted bool) {
	mark := len(c.W.B)
	defer func() {
		if r := recover(); r != nil {
			c.looked = c.Spec
			e.commandPanicked(c, c.W, [][]byte{key}, mark, r)
			deleted = false
		}
	}()
	return serve(c, key)
}

// commandPanicked answers a command that panicked with r (see above):
// what it wrote to w from mark on is dropped, the error goes to c.W (w
// unless the command switched replies on: CLIENT REPLY ON, RESET).
func (e *Engine) commandPanicked(c *Ctx, w *resp.Writer, args [][]byte, mark int, r any) {
	name := panicName(c.looked, args)
	e.logPanic(name, args, r, rtdebug.Stack())
	if mark > len(w.B) {
		// The writer was delivered meanwhile (a busy script flushes
		// outputs): what is left is the command's.
		mark = 0
	}
	w.B = w.B[:mark]
	if !c.InScript && !c.InExec {
		e.resetAfterPanic(c)
	}
	c.W.Error(ErrInternal(name))
}

// resetAfterPanic puts a client whose top-level command panicked in the
// state of one whose command answered.
func (e *Engine) resetAfterPanic(c *Ctx) {
	cl := c.C
	switch cl.park {
	case parkBlocked:
		e.unblock(cl)
	case parkWait:
		e.dropWait(cl)
	case parkReply:
		e.unpark(cl, parkReply) // the promised reply is dropped
	}
	if cl.multi.active {
		if c.looked != nil && c.looked.Txn != TxnNone {
			e.DiscardTransaction(cl)
		} else {
			cl.multi.failed = true
		}
	}
}

// dropWait forgets cl's WAIT or WAITAOF without answering it.
func (e *Engine) dropWait(cl *Client) {
	for i, w := range e.srv.waits {
		if w.cl == cl {
			e.srv.waits = append(e.srv.waits[:i], e.srv.waits[i+1:]...)
			break
		}
	}
	e.unpark(cl, parkWait)
}

// panicName names the command in the error and the log: the command
// Exec resolved ("config|set"), else the first argument as sent.
func panicName(spec *Spec, args [][]byte) string {
	if spec != nil {
		return spec.FullName()
	}
	if len(args) == 0 {
		return ""
	}
	return sanitizeErr(truncate(string(args[0]), panicLogArgLen))
}

// logPanic logs a recovered panic of command name.
func (e *Engine) logPanic(name string, args [][]byte, r any, stack []byte) {
	e.logger().Error("command panicked; answered with an error", "cmd", name, "args", panicArgs(args),
		"panic", fmt.Sprint(r), "stack", string(stack))
}

// panicArgs formats args for the log: quoted, each cut to panicLogArgLen
// bytes, at most panicLogArgs of them.
func panicArgs(args [][]byte) string {
	b := make([]byte, 0, 64)
	for i, a := range args {
		if i == panicLogArgs {
			b = append(b, "... ("...)
			b = strconv.AppendInt(b, int64(len(args)-i), 10)
			b = append(b, " more)"...)
			break
		}
		if i > 0 {
			b = append(b, ' ')
		}
		if len(a) > panicLogArgLen {
			b = strconv.AppendQuote(b, string(a[:panicLogArgLen]))
			b = append(b, "..."...)
			continue
		}
		b = strconv.AppendQuote(b, string(a))
	}
	return string(b)
}
