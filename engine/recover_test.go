package engine_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/store"
)

// breakCommand makes command name (lower case) run fn instead of its
// handler until the test ends: a handler with a bug.
func breakCommand(t *testing.T, name string, fn func(c *engine.Ctx, args [][]byte)) {
	t.Helper()
	spec := engine.Lookup([]byte(name))
	if spec == nil {
		t.Fatalf("no command %s", name)
	}
	old := spec.Fn
	spec.Fn = fn
	t.Cleanup(func() { spec.Fn = old })
}

// halfReplyPanic writes the start of an array reply, then panics.
func halfReplyPanic(c *engine.Ctx, args [][]byte) {
	c.W.Array(3)
	c.W.BulkString("one")
	var m map[string]int
	//lint:ignore SA5000 the nil map write is the point: a runtime panic, whose text the test expects in the log
	m["boom"]++
}

// captureLog sends the engine's log to a buffer.
func captureLog(e *engine.Engine) *bytes.Buffer {
	var buf bytes.Buffer
	e.SetLoggerForTest(slog.New(slog.NewTextHandler(&buf, nil)))
	return &buf
}

var errInternalEcho = "-" + engine.ErrInternal("echo") + "\r\n"

// TestPanicAnswersError: a command that panics answers an error in place
// of what it had written, is logged once with its arguments (cut) and the
// stack, counts as a failed call, and the pipeline and the server go on.
func TestPanicAnswersError(t *testing.T) {
	te := enginetest.New(t)
	log := captureLog(te.E)
	breakCommand(t, "echo", halfReplyPanic)
	cl, conn := te.Client()
	long := strings.Repeat("x", 300)
	te.E.ProcessBatch(cl, [][][]byte{argv("PING"), argv("ECHO", long), argv("SET", "k", "v"), argv("GET", "k")}, func() {})
	te.E.FlushOutputs()
	if got, want := string(conn.Out), "+PONG\r\n"+errInternalEcho+"+OK\r\n$1\r\nv\r\n"; got != want {
		t.Fatalf("pipeline replies %q, want %q", got, want)
	}
	conn.Out = conn.Out[:0]
	logged := log.String()
	if n := strings.Count(logged, "command panicked"); n != 1 {
		t.Fatalf("logged %d times: %s", n, logged)
	}
	for _, want := range []string{"cmd=echo", `\"ECHO\" \"` + strings.Repeat("x", engine.PanicLogArgLen) + `\"...`, "assignment to entry in nil map", "halfReplyPanic"} {
		if !strings.Contains(logged, want) {
			t.Errorf("log lacks %q: %s", want, logged)
		}
	}
	if strings.Contains(logged, strings.Repeat("x", engine.PanicLogArgLen+1)) {
		t.Error("the log holds an argument longer than engine.PanicLogArgLen")
	}
	info := te.Do(cl, conn, "INFO", "commandstats")
	if !strings.Contains(info, "cmdstat_echo:calls=1,") || !strings.Contains(info, "failed_calls=1\r\n") {
		t.Errorf("commandstats: %q", info)
	}
	if info := te.Do(cl, conn, "INFO", "errorstats"); !strings.Contains(info, "errorstat_ERR:count=1\r\n") {
		t.Errorf("errorstats: %q", info)
	}
	te.Expect(cl, conn, "+PONG\r\n", "PING")
}

// TestPanicInTransaction: inside EXEC the failing command's slot holds
// the error and the others run; a panic while queueing fails EXEC.
func TestPanicInTransaction(t *testing.T) {
	te := enginetest.New(t)
	captureLog(te.E)
	breakCommand(t, "echo", halfReplyPanic)
	cl, conn := te.Client()
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "+QUEUED\r\n", "SET", "a", "1")
	te.Expect(cl, conn, "+QUEUED\r\n", "ECHO", "x")
	te.Expect(cl, conn, "+QUEUED\r\n", "SET", "b", "2")
	te.Expect(cl, conn, "*3\r\n+OK\r\n"+errInternalEcho+"+OK\r\n", "EXEC")
	te.Expect(cl, conn, "$1\r\n2\r\n", "GET", "b")
	if cl.InMulti() {
		t.Fatal("still in MULTI after EXEC")
	}

	// MULTI itself panics after entering the transaction: the client is
	// left out of it.
	breakCommand(t, "multi", func(c *engine.Ctx, args [][]byte) {
		c.C.EnterMultiForTest()
		panic("multi")
	})
	te.Expect(cl, conn, "-"+engine.ErrInternal("multi")+"\r\n", "MULTI")
	if cl.InMulti() {
		t.Fatal("in MULTI after MULTI panicked")
	}
}

// TestPanicInScript: redis.call of a command that panics raises its
// error, redis.pcall returns it; the script engine is ready for the next
// script either way, and a panic outside redis.call (in the script's own
// command) resets the script state too.
func TestPanicInScript(t *testing.T) {
	te := enginetest.New(t)
	captureLog(te.E)
	breakCommand(t, "echo", halfReplyPanic)
	cl, conn := te.Client()
	script := "return redis.call('echo', 'x')"
	te.Expect(cl, conn, "-"+engine.ErrInternal("echo")+" script: "+sha1hex(script)+", on @user_script:1.\r\n", "EVAL", script, "0")
	te.Expect(cl, conn, "$2\r\nok\r\n", "EVAL", "local r = redis.pcall('echo', 'x') if r.err then return 'ok' end return 'no'", "0")
	te.Expect(cl, conn, "*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "EVAL", "redis.call('set', KEYS[1], '1') redis.pcall('echo', 'x') return {redis.call('get', KEYS[1]), '2'}", "1", "k")
	if te.E.ScriptCaller() != nil {
		t.Fatal("a script is still running")
	}
	// FUNCTION and EVAL share redis.call.
	te.Do(cl, conn, "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return redis.pcall('echo', 'x') end)")
	te.Expect(cl, conn, errInternalEcho, "FCALL", "f", "0")

	// The script's own command panics while the script runs: the script
	// state is reset by the unwinding.
	breakCommand(t, "echo", func(c *engine.Ctx, args [][]byte) { panic("in echo") })
	breakCommand(t, "eval", func(c *engine.Ctx, args [][]byte) {
		defer c.PrepareScriptForTest()()
		panic("in eval")
	})
	te.Expect(cl, conn, "-"+engine.ErrInternal("eval")+"\r\n", "EVAL", "return 1", "0")
	if te.E.ScriptCaller() != nil {
		t.Fatal("a script is still running after its command panicked")
	}
}

// TestPanicAfterBlock: a command that blocked its client and then
// panicked leaves the client unblocked: a later push serves nobody, and
// the client answered once.
func TestPanicAfterBlock(t *testing.T) {
	te := enginetest.New(t)
	captureLog(te.E)
	breakCommand(t, "blpop", func(c *engine.Ctx, args [][]byte) {
		c.Block(engine.BlockList, args[1:2], 0, func(c *engine.Ctx, key []byte) bool {
			c.W.BulkString("served")
			return false
		})
		panic("after block")
	})
	cl, conn := te.Client()
	other, oconn := te.Client()
	te.Expect(cl, conn, "-"+engine.ErrInternal("blpop")+"\r\n", "BLPOP", "q", "0")
	if cl.IsBlocked() || te.E.BlockedClients() != 0 || te.E.BlockingKeys() != 0 {
		t.Fatalf("blocked %v, %d blocked clients, %d keys", cl.IsBlocked(), te.E.BlockedClients(), te.E.BlockingKeys())
	}
	te.Expect(other, oconn, ":1\r\n", "RPUSH", "q", "x")
	te.Expect(cl, conn, "+PONG\r\n", "PING")
}

// TestPanicInServe: a ServeFunc that panics answers its blocked client
// with the error; the command that readied the key answers normally.
func TestPanicInServe(t *testing.T) {
	te := enginetest.New(t)
	captureLog(te.E)
	breakCommand(t, "blpop", func(c *engine.Ctx, args [][]byte) {
		c.Block(engine.BlockList, args[1:2], 0, func(c *engine.Ctx, key []byte) bool {
			c.W.Array(2)
			panic("in serve")
		})
	})
	cl, conn := te.Client()
	other, oconn := te.Client()
	te.Do(cl, conn, "BLPOP", "q", "0")
	te.Expect(other, oconn, ":1\r\n", "RPUSH", "q", "x")
	if got := string(conn.Out); got != "-"+engine.ErrInternal("blpop")+"\r\n" {
		t.Fatalf("blocked client got %q", got)
	}
	conn.Out = conn.Out[:0]
	te.Expect(cl, conn, "+PONG\r\n", "PING")
}

// replicatedEngine returns a replicated engine that leads, with the
// replicator its ops go to.
func replicatedEngine(t *testing.T) (*enginetest.Engine, *enginetest.StubReplicator) {
	te := enginetest.New(t)
	r := &enginetest.StubReplicator{}
	te.E.EnableReplicationForTest(r, 7)
	te.E.SetLeader(true)
	te.E.Config.ReadMode = config.ReadLease
	return te, r
}

// commit applies the ops proposed so far as one entry.
func commit(te *enginetest.Engine, r *enginetest.StubReplicator, index uint64) {
	ops := r.Ops
	r.Ops = nil
	te.E.ApplyEntry(index, te.E.NowMs(), index, nil, ops)
	te.E.FlushOutputs()
}

// TestApplyMalformedOps: ops no node can apply are refused, logged, and
// answered to the proposing client; the entry's other ops apply.
func TestApplyMalformedOps(t *testing.T) {
	te, r := replicatedEngine(t)
	log := captureLog(te.E)
	cl, conn := te.Client()
	remote := func(kind engine.OpKind, db, proto int, args ...[][]byte) engine.Op {
		return engine.Op{Kind: kind, Origin: 99, Seq: 1, DB: db, Proto: proto, Args: args}
	}
	bad := []engine.Op{
		remote(engine.OpCommand, 0, 2),                                               // no command
		remote(engine.OpCommand, 0, 2, nil),                                          // an empty command
		remote(engine.OpCommand, 0, 2, argv("SET", "a", "1"), argv("SET", "b", "1")), // two
		remote(engine.OpCommand, 16, 2, argv("SET", "a", "1")),                       // no such database
		remote(engine.OpCommand, -1, 2, argv("SET", "a", "1")),
		remote(engine.OpCommand, 0, 0, argv("SET", "a", "1")), // no such protocol
		remote(engine.OpExec, 0, 2, argv("SET", "a", "1"), nil),
		remote(engine.OpExpire, 0, 0),
		remote(0, 0, 2, argv("SET", "a", "1")),
		remote(200, 0, 2, argv("SET", "a", "1")),
		remote(engine.OpCommand, 0, 2, argv("NOSUCHCOMMAND")),
		remote(engine.OpCommand, 0, 2, argv("GET")), // wrong arity
		{Kind: engine.OpCommand, Origin: 99, Seq: 1, Proto: 2, Args: [][][]byte{argv("SET", "a", "1")},
			Settings: &engine.ApplySettings{ProtoMaxBulkLen: 0}}, // settings out of bounds
		{Kind: engine.OpCommand, Origin: 99, Seq: 1, Proto: 2, Args: [][][]byte{argv("SET", "a", "1")},
			Settings: &engine.ApplySettings{ProtoMaxBulkLen: 1, HashMaxListpackEntries: -1}},
	}
	// This node's client proposes a SET; its op is corrupted in the log.
	te.Do(cl, conn, "SET", "mine", "1")
	if len(r.Ops) != 1 {
		t.Fatalf("%d ops proposed", len(r.Ops))
	}
	mine := r.Ops[0]
	mine.Args = nil
	r.Ops = append(bad, mine, remote(engine.OpCommand, 0, 2, argv("SET", "good", "1")))
	commit(te, r, 1)
	if got := string(conn.Out); got != "-"+engine.ErrBadOp+"\r\n" {
		t.Fatalf("proposing client got %q", got)
	}
	conn.Out = conn.Out[:0]
	if n := strings.Count(log.String(), "replicated op refused"); n != 13 {
		t.Errorf("%d refusals logged, want 13:\n%s", n, log)
	}
	te.Expect(cl, conn, ":1\r\n", "EXISTS", "good", "mine", "a", "b")
}

// TestApplyPanic: a command that panics in apply answers the proposing
// client with the error and leaves the other ops and later entries
// applying.
func TestApplyPanic(t *testing.T) {
	te, r := replicatedEngine(t)
	captureLog(te.E)
	breakCommand(t, "lpush", func(c *engine.Ctx, args [][]byte) {
		c.DB.Set(string(args[1]), store.NewString([]byte("half")), 0, 0) // half done, then the bug
		panic("in lpush")
	})
	cl, conn := te.Client()
	te.E.ProcessBatch(cl, [][][]byte{argv("LPUSH", "l", "x"), argv("SET", "after", "1")}, func() {})
	te.E.FlushOutputs()
	commit(te, r, 1) // the LPUSH; the SET waited behind it and is proposed now
	commit(te, r, 2)
	if got, want := string(conn.Out), "-"+engine.ErrInternal("lpush")+"\r\n+OK\r\n"; got != want {
		t.Fatalf("proposing client got %q, want %q", got, want)
	}
	conn.Out = conn.Out[:0]
	// The same op from another node runs as the internal client.
	r.Ops = []engine.Op{{Kind: engine.OpExec, Origin: 99, Seq: 5, Proto: 2, Args: [][][]byte{argv("SET", "x", "1"), argv("LPUSH", "l2", "y"), argv("SET", "y", "1")}}}
	commit(te, r, 3)
	te.Expect(cl, conn, ":2\r\n", "EXISTS", "x", "y")
	// What the panicking command did before the panic stays done.
	te.Expect(cl, conn, "+string\r\n", "TYPE", "l2")
	if te.E.ApplyClientForTest().InMulti() || len(te.E.ApplyClientForTest().W.B) != 0 {
		t.Fatal("the apply client kept a transaction or output")
	}
}

// TestProposalsRefused: ops committed in an entry no node could decode
// are answered with the error, transactions discarded.
func TestProposalsRefused(t *testing.T) {
	te, r := replicatedEngine(t)
	cl, conn := te.Client()
	te.Do(cl, conn, "SET", "k", "v")
	tx, tconn := te.Client()
	te.Do(tx, tconn, "MULTI")
	te.Do(tx, tconn, "SET", "k", "w")
	te.Do(tx, tconn, "EXEC")
	if len(r.Ops) != 2 || len(conn.Out) != 0 {
		t.Fatalf("%d ops, output %q", len(r.Ops), conn.Out)
	}
	te.E.ProposalsRefused([]uint64{r.Ops[0].Seq, r.Ops[1].Seq})
	te.E.FlushOutputs()
	for _, out := range []*enginetest.Conn{conn, tconn} {
		if got := string(out.Out); got != "-"+engine.ErrBadOp+"\r\n" {
			t.Errorf("got %q", got)
		}
		out.Out = out.Out[:0]
	}
	if tx.InMulti() {
		t.Error("still in MULTI")
	}
	te.Expect(cl, conn, ":0\r\n", "EXISTS", "k")
}
