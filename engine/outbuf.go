package engine

import (
	"log/slog"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
)

// Client output buffer limits and the query buffer limit, as Redis 7.0's
// networking.c (checkClientOutputBufferLimits,
// closeClientOnOutputBufferLimitReached, readQueryFromClient).
//
// A client's output waits in two places: its writer in the engine (W,
// filled during one loop iteration, handed over by FlushOutputs) and its
// connection (Conn.Pending: delivered, not yet written to the socket; a
// writer blocked on a peer that never reads holds it there). Their sum is
// what Redis keeps in its 16 KB reply buffer (CLIENT LIST obl) and then in
// its reply list (oll blocks, omem bytes); only the list counts against
// the limits, so the first replyChunk bytes do here too.
//
// The limits are checked where output grows: after each command for the
// client that ran it (once its output passed replyChunk in the
// iteration), for each subscriber a message is written to, before
// FlushOutputs hands output to a connection, and once a second for every
// client (the soft limit's time runs out without more output, as Redis's
// clientsCron sees it). A client over its limit is closed as Redis's
// freeClientAsync closes it: its output is dropped, it runs no more
// commands, and it is freed in FlushOutputs (Redis's beforeSleep); the
// connection is closed without writing, which never waits on the peer.

// replyChunk is Redis's PROTO_REPLY_CHUNK_BYTES: the reply buffer every
// client has (CLIENT LIST rbs), which the limits do not count.
const replyChunk = 16 * 1024

// outputClass is getClientType for the limits: a client with any
// subscription (channels, patterns or shard channels, either protocol) is
// a pubsub client; lockkv has no replica connections; a MONITOR client is
// normal, as in Redis.
func outputClass(cl *Client) int {
	if cl.sub.count() > 0 {
		return config.ClassPubSub
	}
	return config.ClassNormal
}

// outputUsage maps the client's queued output onto Redis's CLIENT LIST
// fields: obl the bytes in the reply buffer, oll the 16 KB blocks of the
// reply list, omem the list's bytes (getClientOutputBufferMemoryUsage).
func outputUsage(cl *Client) (obl, oll, omem int64) {
	total := int64(len(cl.W.B))
	if cl.Conn != nil {
		total += cl.Conn.Pending()
	}
	obl = min(total, replyChunk)
	omem = total - obl
	oll = (omem + replyChunk - 1) / replyChunk
	return obl, oll, omem
}

// checkOutput closes cl if its output is over its class's limits. It is
// closeClientOnOutputBufferLimitReached: async marks the client to be
// freed in FlushOutputs (the caller may be iterating over clients), else
// it is freed now. It reports whether cl is (to be) closed.
func (e *Engine) checkOutput(cl *Client, async bool) bool {
	if cl.closeASAP {
		// Nothing more reaches a client being closed.
		cl.W.B = cl.W.B[:0]
		return true
	}
	if cl.Conn == nil || cl.freed {
		return false
	}
	l := &e.Config.OutputBufferLimits[outputClass(cl)]
	if l.Hard == 0 && l.Soft == 0 {
		return false
	}
	_, _, omem := outputUsage(cl)
	if omem == 0 {
		return false // Redis: reply_bytes == 0, the soft clock keeps running
	}
	if !e.outputLimitReached(cl, l, uint64(omem)) {
		return false
	}
	info := string(e.appendClientInfo(nil, cl, e.NowMs(), 0))
	attrs := []any{"id", cl.ID, "addr", cl.Conn.RemoteAddr(), "class", className(outputClass(cl)), "omem", omem}
	if async {
		e.logger().Warn("Client "+info+" scheduled to be closed ASAP for overcoming of output buffer limits.", attrs...)
		e.closeAsync(cl)
	} else {
		e.logger().Warn("Client "+info+" closed for overcoming of output buffer limits.", attrs...)
		cl.W.B = cl.W.B[:0]
		cl.Conn.Abort()
		e.FreeClient(cl)
	}
	return true
}

// outputLimitReached is checkClientOutputBufferLimits: the hard limit at
// once, the soft one when it was reached continuously for more than its
// seconds (of the server's clock, whole seconds as server.unixtime).
func (e *Engine) outputLimitReached(cl *Client, l *config.OutputBufferLimit, used uint64) bool {
	hard := l.Hard != 0 && used >= l.Hard
	soft := l.Soft != 0 && used >= l.Soft
	now := e.NowMs() / 1000
	if soft {
		if cl.obufSoftSince == 0 {
			cl.obufSoftSince = now
			soft = false // first time the soft limit is seen reached
		} else if now-cl.obufSoftSince <= l.SoftSeconds {
			soft = false
		}
	} else {
		cl.obufSoftSince = 0
	}
	return soft || hard
}

// closeAsync is freeClientAsync: cl's output is dropped, it runs nothing
// more, and FlushOutputs closes and frees it.
func (e *Engine) closeAsync(cl *Client) {
	if cl.closeASAP || cl.freed {
		return
	}
	cl.closeASAP = true
	cl.W.B = cl.W.B[:0]
	e.closing = append(e.closing, cl)
}

// freeClosing frees the clients closeAsync marked
// (freeClientsInAsyncFreeQueue). The client whose script is running, when
// a busy script serves others, waits until it returns, as Redis's
// protected clients do.
func (e *Engine) freeClosing() {
	caller := e.ScriptCaller()
	keep := e.closing[:0]
	for _, cl := range e.closing {
		switch {
		case cl == caller:
			keep = append(keep, cl)
		case !cl.freed:
			cl.W.B = cl.W.B[:0]
			cl.Conn.Abort()
			e.FreeClient(cl)
		}
	}
	clear(e.closing[len(keep):])
	e.closing = keep
}

// outputCron checks every client's output once a second (Redis's
// clientsCron): a soft limit runs out without more output.
func (e *Engine) outputCron(now int64) {
	if now < e.srv.nextOutputCheck {
		return
	}
	e.srv.nextOutputCheck = now + 1000
	for _, cl := range e.clients {
		e.checkOutput(cl, false)
	}
}

func className(class int) string {
	switch class {
	case config.ClassPubSub:
		return "pubsub"
	case config.ClassReplica:
		return "slave"
	}
	return "normal"
}

// CloseQueryBufferLimit closes cl, whose connection read more than
// client-query-buffer-limit bytes it has not run; head is the start of
// the unparsed input. The reader stops reading; the engine logs what
// Redis logs and frees the client without writing its pending output.
func (e *Engine) CloseQueryBufferLimit(cl *Client, head []byte) {
	if cl == nil || cl.freed {
		return
	}
	info := e.appendClientInfo(nil, cl, e.NowMs(), 0)
	msg := "Closing client that reached max query buffer length: " + string(info) +
		" (qbuf initial bytes: " + string(cstr.AppendRepr(nil, head)) + ")"
	qbuf, _ := cl.Conn.QueryBuffer()
	e.logger().Warn(msg, "id", cl.ID, "addr", cl.Conn.RemoteAddr(), "qbuf", qbuf)
	e.closeAsync(cl)
	e.freeClosing()
}

// logger returns the engine's logger.
func (e *Engine) logger() *slog.Logger {
	if e.log == nil {
		return discardLogger
	}
	return e.log
}

var discardLogger = slog.New(slog.DiscardHandler)

// appendMemFields appends CLIENT LIST's memory fields for cl: qbuf and
// qbuf-free from its connection's reader, argv-mem of the command
// running (argvMem, for the calling client), multi-mem of its MULTI
// queue, the reply buffer (rbs, rbp), obl, oll and omem (outputUsage),
// and tot-mem, their sum with the reader's buffer in place of qbuf.
func appendMemFields(b []byte, cl *Client, argvMem int64) []byte {
	num := func(name string, n int64) {
		b = append(b, ' ')
		b = append(b, name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, n, 10)
	}
	var qbuf, qfree int64
	if cl.Conn != nil {
		qbuf, qfree = cl.Conn.QueryBuffer()
	}
	var multiMem int64
	for _, q := range cl.multi.queue {
		for _, a := range q {
			multiMem += int64(len(a)) + 8 // the argument and its pointer
		}
	}
	obl, oll, omem := outputUsage(cl)
	num("qbuf", qbuf)
	num("qbuf-free", qfree)
	num("argv-mem", argvMem)
	num("multi-mem", multiMem)
	num("rbs", replyChunk)
	num("rbp", replyChunk)
	num("obl", obl)
	num("oll", oll)
	num("omem", omem)
	num("tot-mem", qbuf+qfree+argvMem+multiMem+replyChunk+omem)
	return b
}
