package engine_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine/enginetest"
)

// Redis 7.2 behaviour lockkv implements although its parity target, Redis
// 7.0.15, lacks it: CLIENT SETINFO, CLIENT NO-TOUCH and WAITAOF. Lock
// clients send CLIENT SETINFO on every connection. The expected replies
// follow 7.2's source (networking.c clientSetinfoCommand, db.c lookupKey,
// replication.c waitaofCommand), since the redis-server the conformance
// suite runs cannot show them.

// clientField returns field name's value in a CLIENT INFO reply.
func clientField(t *testing.T, info, name string) string {
	t.Helper()
	line := strings.TrimSuffix(info[strings.Index(info, "\r\n")+2:], "\n\r\n")
	for _, f := range strings.Split(line, " ") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			return v
		}
	}
	t.Fatalf("no %s= in %q", name, info)
	return ""
}

func TestClientSETINFO(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	info := te.Do(cl, conn, "CLIENT", "INFO")
	if !strings.HasSuffix(info, " resp=2 lib-name= lib-ver=\n\r\n") {
		t.Fatalf("CLIENT INFO does not end with 7.2's empty lib fields: %q", info)
	}
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "SETINFO", "LIB-NAME", "redisson")
	te.Expect(cl, conn, "+OK\r\n", "client", "setinfo", "lib-ver", "3.27.2")
	info = te.Do(cl, conn, "CLIENT", "INFO")
	if !strings.HasSuffix(info, " resp=2 lib-name=redisson lib-ver=3.27.2\n\r\n") {
		t.Fatalf("CLIENT INFO = %q", info)
	}
	list := te.Do(cl, conn, "CLIENT", "LIST")
	if !strings.Contains(list, " lib-name=redisson lib-ver=3.27.2\n") {
		t.Fatalf("CLIENT LIST = %q", list)
	}

	// The attribute is echoed as sent, up to a NUL (C's %s).
	te.Expect(cl, conn, "-ERR Unrecognized option 'lib-foo'\r\n", "CLIENT", "SETINFO", "lib-foo", "x")
	te.Expect(cl, conn, "-ERR Unrecognized option 'a'\r\n", "CLIENT", "SETINFO", "a\x00lib-name", "x")
	te.Expect(cl, conn, "-ERR Unrecognized option 'x y'\r\n", "CLIENT", "SETINFO", "x\ny", "v")
	// Every byte of the value must be '!'..'~'.
	for _, bad := range []string{"a b", "a\nb", "\x7f", "caf\xc3\xa9", "\x01"} {
		te.Expect(cl, conn, "-ERR LIB-VER cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETINFO", "LIB-VER", bad)
	}
	te.Expect(cl, conn, "-ERR lib-name cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETINFO", "lib-name", "go redis")
	// strcasecmp and the validation read C strings: "lib-name\0..." is
	// LIB-NAME, and a value is seen up to its first NUL.
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "SETINFO", "lib-name\x00junk", "go-redis(,go1.22)\x00 not shown")
	info = te.Do(cl, conn, "CLIENT", "INFO")
	if got := clientField(t, info, "lib-name"); got != "go-redis(,go1.22)" {
		t.Fatalf("lib-name = %q", got)
	}
	// The errors left the previous values alone.
	if got := clientField(t, info, "lib-ver"); got != "3.27.2" {
		t.Fatalf("lib-ver = %q", got)
	}
	// An empty value clears the attribute.
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "SETINFO", "lib-ver", "")
	if got := clientField(t, te.Do(cl, conn, "CLIENT", "INFO"), "lib-ver"); got != "" {
		t.Fatalf("lib-ver after clearing = %q", got)
	}

	te.Expect(cl, conn, "-ERR wrong number of arguments for 'client|setinfo' command\r\n", "CLIENT", "SETINFO", "lib-name")
	te.Expect(cl, conn, "-ERR wrong number of arguments for 'client|setinfo' command\r\n", "CLIENT", "SETINFO", "lib-name", "a", "b")
	te.Expect(cl, conn, "-ERR wrong number of arguments for 'client|setinfo' command\r\n", "CLIENT", "SETINFO")

	// RESET keeps the library attributes (7.2's clearClientConnectionState
	// does not touch them).
	te.Expect(cl, conn, "+RESET\r\n", "RESET")
	if got := clientField(t, te.Do(cl, conn, "CLIENT", "INFO"), "lib-name"); got != "go-redis(,go1.22)" {
		t.Fatalf("lib-name after RESET = %q", got)
	}

	// Not from scripts (NOSCRIPT), fine inside MULTI.
	if out := te.Do(cl, conn, "EVAL", "return redis.pcall('CLIENT','SETINFO','LIB-NAME','x')", "0"); !strings.HasPrefix(out, "-ERR This Redis command is not allowed from script") {
		t.Fatalf("CLIENT SETINFO from a script = %q", out)
	}
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "+QUEUED\r\n", "CLIENT", "SETINFO", "LIB-VER", "1.0")
	te.Expect(cl, conn, "*1\r\n+OK\r\n", "EXEC")
}

func TestClientNOTOUCH(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	idle := func(key string) string {
		t.Helper()
		return te.Do(cl, conn, "OBJECT", "IDLETIME", key)
	}
	te.Expect(cl, conn, "+OK\r\n", "SET", "lock", "owner")
	te.Expect(cl, conn, "+OK\r\n", "SET", "s", "abc")
	te.Advance(10 * time.Second)

	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "NO-TOUCH", "on")
	if f := clientField(t, te.Do(cl, conn, "CLIENT", "INFO"), "flags"); f != "T" {
		t.Fatalf("flags with NO-TOUCH = %q, want T", f)
	}
	// Reads and in-place writes leave the access time.
	te.Expect(cl, conn, "$5\r\nowner\r\n", "GET", "lock")
	te.Expect(cl, conn, ":1\r\n", "EXISTS", "lock")
	te.Expect(cl, conn, ":4\r\n", "APPEND", "s", "d")
	if got := idle("lock"); got != ":10\r\n" {
		t.Fatalf("GET under NO-TOUCH touched the key: idle %q", got)
	}
	if got := idle("s"); got != ":10\r\n" {
		t.Fatalf("APPEND under NO-TOUCH touched the key: idle %q", got)
	}
	// Scripts run for the calling client: even redis.call('TOUCH') there
	// leaves the clock, since the client's command is EVAL.
	te.Do(cl, conn, "EVAL", "redis.call('GET', KEYS[1]); return redis.call('TOUCH', KEYS[1])", "1", "lock")
	if got := idle("lock"); got != ":10\r\n" {
		t.Fatalf("a NO-TOUCH client's script touched the key: idle %q", got)
	}
	// TOUCH itself still touches, also inside MULTI.
	te.Expect(cl, conn, ":1\r\n", "TOUCH", "lock")
	if got := idle("lock"); got != ":0\r\n" {
		t.Fatalf("TOUCH under NO-TOUCH: idle %q, want 0", got)
	}
	te.Advance(5 * time.Second)
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "+QUEUED\r\n", "GET", "s")
	te.Expect(cl, conn, "+QUEUED\r\n", "TOUCH", "lock")
	te.Expect(cl, conn, "*2\r\n$4\r\nabcd\r\n:1\r\n", "EXEC")
	if got := idle("lock"); got != ":0\r\n" {
		t.Fatalf("TOUCH in MULTI under NO-TOUCH: idle %q, want 0", got)
	}
	if got := idle("s"); got != ":15\r\n" {
		t.Fatalf("GET in MULTI under NO-TOUCH: idle %q, want 15", got)
	}

	// Another client touches as usual.
	other, oconn := te.Client()
	te.Expect(other, oconn, "$4\r\nabcd\r\n", "GET", "s")
	if got := idle("s"); got != ":0\r\n" {
		t.Fatalf("a normal client's GET: idle %q, want 0", got)
	}

	te.Expect(cl, conn, "-ERR syntax error\r\n", "CLIENT", "NO-TOUCH", "maybe")
	te.Expect(cl, conn, "-ERR wrong number of arguments for 'client|no-touch' command\r\n", "CLIENT", "NO-TOUCH")
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "NO-TOUCH", "OFF")
	te.Advance(3 * time.Second)
	te.Do(cl, conn, "GET", "lock")
	if got := idle("lock"); got != ":0\r\n" {
		t.Fatalf("GET after NO-TOUCH OFF: idle %q, want 0", got)
	}
	// RESET turns it off.
	te.Expect(cl, conn, "+OK\r\n", "CLIENT", "NO-TOUCH", "on")
	te.Expect(cl, conn, "+RESET\r\n", "RESET")
	if f := clientField(t, te.Do(cl, conn, "CLIENT", "INFO"), "flags"); f != "N" {
		t.Fatalf("flags after RESET = %q, want N", f)
	}
}

func TestWAITAOF(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	wait := func(args ...string) string {
		return te.Do(cl, conn, append([]string{"WAITAOF"}, args...)...)
	}
	// Arguments in 7.2's order and words.
	for _, tc := range []struct{ args, want string }{
		{"x 0 0", "-ERR value is not an integer or out of range\r\n"},
		{"2 0 0", "-ERR value is out of range, value must between 0 and 1\r\n"},
		{"-1 x x", "-ERR value is out of range, value must between 0 and 1\r\n"},
		{"0 x 0", "-ERR value is out of range, must be positive\r\n"},
		{"0 -1 0", "-ERR value is out of range, must be positive\r\n"},
		{"0 0 x", "-ERR timeout is not an integer or out of range\r\n"},
		{"0 0 1.5", "-ERR timeout is not an integer or out of range\r\n"},
		{"0 0 -1", "-ERR timeout is negative\r\n"},
		{"0 0 9223372036854775807", "-ERR timeout is out of range\r\n"},
		{"1 0 0", "-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n"},
		{"0 0 0", "*2\r\n:0\r\n:0\r\n"},
		{"0 0 100", "*2\r\n:0\r\n:0\r\n"},
	} {
		if got := wait(strings.Fields(tc.args)...); got != tc.want {
			t.Errorf("WAITAOF %s = %q, want %q", tc.args, got, tc.want)
		}
	}
	te.Expect(cl, conn, "-ERR wrong number of arguments for 'waitaof' command\r\n", "WAITAOF", "0", "0")

	// No replica ever acknowledges: WAITAOF blocks until its timeout and
	// answers the counts, like WAIT. The rest of the pipeline waits.
	te.E.ProcessBatch(cl, [][][]byte{{[]byte("WAITAOF"), []byte("0"), []byte("1"), []byte("100")}, {[]byte("PING")}}, func() {})
	te.E.FlushOutputs()
	if len(conn.Out) != 0 {
		t.Fatalf("WAITAOF 0 1 100 answered at once: %q", conn.Out)
	}
	te.Advance(99 * time.Millisecond)
	te.E.Cron()
	te.E.FlushOutputs()
	if len(conn.Out) != 0 {
		t.Fatalf("answered before the timeout: %q", conn.Out)
	}
	te.Advance(time.Millisecond)
	te.E.Cron()
	te.E.FlushOutputs()
	if got := string(conn.Out); got != "*2\r\n:0\r\n:0\r\n+PONG\r\n" {
		t.Fatalf("at the timeout: %q", got)
	}
	conn.Out = conn.Out[:0]

	// Inside MULTI it never blocks.
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "+QUEUED\r\n", "WAITAOF", "0", "5", "0")
	te.Expect(cl, conn, "*1\r\n*2\r\n:0\r\n:0\r\n", "EXEC")
	// Not from scripts.
	if out := te.Do(cl, conn, "EVAL", "return redis.pcall('WAITAOF', 0, 0, 0)", "0"); !strings.HasPrefix(out, "-ERR This Redis command is not allowed from script") {
		t.Fatalf("WAITAOF from a script = %q", out)
	}

	// A standalone server keeps nothing on disk: it refuses appendonly
	// yes, so numlocal 1 stays an error.
	if got := te.Do(cl, conn, "CONFIG", "SET", "appendonly", "yes"); !strings.HasPrefix(got, "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - lockkv does not support the append-only file") {
		t.Fatalf("CONFIG SET appendonly yes: %q", got)
	}
	te.Expect(cl, conn, "-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n", "WAITAOF", "1", "0", "0")

	// CLIENT UNBLOCK answers as a timeout, or with the UNBLOCKED error.
	admin, aconn := te.Client()
	id := strings.Trim(te.Do(cl, conn, "CLIENT", "ID"), ":\r\n")
	if got := wait("0", "3", "0"); got != "" {
		t.Fatalf("WAITAOF 0 3 0 answered at once: %q", got)
	}
	if f := clientField(t, te.Do(admin, aconn, "CLIENT", "LIST", "ID", id), "flags"); f != "b" {
		t.Fatalf("flags of a client in WAITAOF = %q, want b", f)
	}
	te.Expect(admin, aconn, ":1\r\n", "CLIENT", "UNBLOCK", id)
	if got := string(conn.Out); got != "*2\r\n:0\r\n:0\r\n" {
		t.Fatalf("after CLIENT UNBLOCK: %q", got)
	}
	conn.Out = conn.Out[:0]
	wait("0", "3", "0")
	te.Expect(admin, aconn, ":1\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	if got := string(conn.Out); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("after CLIENT UNBLOCK ERROR: %q", got)
	}
	conn.Out = conn.Out[:0]
	te.Expect(admin, aconn, ":0\r\n", "CLIENT", "UNBLOCK", id)
	te.Expect(cl, conn, "+PONG\r\n", "PING")
}

// TestRedis72CommandTable checks that the 7.2 additions are in every COMMAND
// view, with 7.2's arity, flags and categories.
func TestRedis72CommandTable(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.Expect(cl, conn, "*1\r\n*10\r\n$7\r\nwaitaof\r\n:4\r\n*1\r\n+noscript\r\n:0\r\n:0\r\n:0\r\n"+
		"*2\r\n+@slow\r\n+@connection\r\n*2\r\n$25\r\nrequest_policy:all_shards\r\n$23\r\nresponse_policy:agg_min\r\n*0\r\n*0\r\n",
		"COMMAND", "INFO", "waitaof")
	te.Expect(cl, conn, "*1\r\n*10\r\n$14\r\nclient|setinfo\r\n:4\r\n*3\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"+
		"*2\r\n+@slow\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n",
		"COMMAND", "INFO", "client|setinfo")
	te.Expect(cl, conn, "*1\r\n*10\r\n$15\r\nclient|no-touch\r\n:3\r\n*3\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"+
		"*2\r\n+@slow\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n",
		"COMMAND", "INFO", "client|no-touch")

	list := te.Do(cl, conn, "COMMAND", "LIST")
	for _, name := range []string{"waitaof", "client|setinfo", "client|no-touch"} {
		if !strings.Contains(list, "\r\n"+name+"\r\n") {
			t.Errorf("COMMAND LIST lacks %s", name)
		}
	}
	// COMMAND COUNT counts the top-level commands COMMAND LIST names.
	top := 0
	for _, l := range strings.Split(list, "\r\n") {
		if l != "" && l[0] != '*' && l[0] != '$' && !strings.Contains(l, "|") {
			top++
		}
	}
	if got := te.Do(cl, conn, "COMMAND", "COUNT"); got != ":"+strconv.Itoa(top)+"\r\n" {
		t.Errorf("COMMAND COUNT = %q, COMMAND LIST has %d commands", got, top)
	}
	info := te.Do(cl, conn, "COMMAND", "INFO", "client")
	for _, sub := range []string{"client|setinfo", "client|no-touch"} {
		if !strings.Contains(info, sub) {
			t.Errorf("COMMAND INFO client lacks %s", sub)
		}
	}
	docs := te.Do(cl, conn, "COMMAND", "DOCS", "waitaof", "client")
	for _, want := range []string{"$7\r\nwaitaof\r\n", "$14\r\nclient|setinfo\r\n", "$15\r\nclient|no-touch\r\n"} {
		if !strings.Contains(docs, want) {
			t.Errorf("COMMAND DOCS lacks %q: %q", want, docs)
		}
	}
}
