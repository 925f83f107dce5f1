package engine_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// slowConn is a connection whose peer does not read: what the engine
// delivers stays pending, as on a socket that is full.
type slowConn struct {
	enginetest.Conn
	pending int64
	aborted bool
}

func (c *slowConn) Deliver(b []byte) { c.pending += int64(len(b)) }
func (c *slowConn) Abort()           { c.aborted = true }
func (c *slowConn) Pending() int64   { return c.pending }

// logTo makes te's engine log into a buffer.
func logTo(te *enginetest.Engine) *bytes.Buffer {
	var buf bytes.Buffer
	te.E.SetLoggerForTest(slog.New(slog.NewTextHandler(&buf, nil)))
	return &buf
}

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

// TestOutputBufferSoftLimitSeconds: the soft limit counts whole seconds of
// the server's clock from the first time it is seen reached, and closes
// the client only when more than the soft seconds passed (Redis's
// elapsed <= soft_limit_seconds keeps it); Cron, which looks at every
// client once a second, finds it without more output, closes it at once
// and logs Redis's line.
func TestOutputBufferSoftLimitSeconds(t *testing.T) {
	te := enginetest.New(t)
	log := logTo(te)
	te.E.Config.OutputBufferLimits[config.ClassPubSub] = config.OutputBufferLimit{Soft: 100000, SoftSeconds: 2}
	pub, pubConn := te.Client()
	sc := &slowConn{}
	sub := te.E.NewClient(sc)
	te.E.Call(sub, args("SUBSCRIBE", "ch"))
	te.E.FlushOutputs()
	msg := strings.Repeat("x", 200000)
	te.Do(pub, pubConn, "PUBLISH", "ch", msg) // over the soft limit: the clock starts
	for _, d := range []time.Duration{500 * time.Millisecond, time.Second, time.Second} {
		te.Advance(d) // 0.5 s, 1.5 s, 2.5 s after: at most 2 whole seconds
		te.E.Cron()
		if sub.Freed() {
			t.Fatalf("closed before the soft seconds passed")
		}
	}
	te.Advance(time.Second) // 3 whole seconds: more than 2 (Cron looks once a second)
	te.E.Cron()
	if !sub.Freed() || !sc.aborted {
		t.Fatalf("not closed after the soft seconds: freed %v, aborted %v", sub.Freed(), sc.aborted)
	}
	line := log.String()
	for _, want := range []string{"level=WARN", "closed for overcoming of output buffer limits.", "class=pubsub", "flags=P"} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
}

// TestOutputBufferSoftLimitResets: output back under the soft limit
// restarts its clock.
func TestOutputBufferSoftLimitResets(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.OutputBufferLimits[config.ClassPubSub] = config.OutputBufferLimit{Soft: 100000, SoftSeconds: 1}
	pub, pubConn := te.Client()
	sc := &slowConn{}
	sub := te.E.NewClient(sc)
	te.E.Call(sub, args("SUBSCRIBE", "ch"))
	te.E.FlushOutputs()
	te.Do(pub, pubConn, "PUBLISH", "ch", strings.Repeat("x", 200000))
	te.Advance(1500 * time.Millisecond)
	sc.pending = 20000 // the peer read most of it
	te.E.Cron()
	sc.pending = 200000
	te.Advance(1000 * time.Millisecond)
	te.E.Cron() // seen over again: a new start
	if sub.Freed() {
		t.Fatal("closed although the output went under the soft limit in between")
	}
	te.Advance(2000 * time.Millisecond)
	te.E.Cron()
	if !sub.Freed() {
		t.Fatal("not closed")
	}
}

// TestOutputBufferHardLimitPipeline: a subscriber over the hard limit is
// closed during the pipeline that fills it: it gets nothing more, each
// PUBLISH still counts it until it is freed (as in Redis), and the log
// says it was scheduled to be closed.
func TestOutputBufferHardLimitPipeline(t *testing.T) {
	te := enginetest.New(t)
	log := logTo(te)
	te.E.Config.OutputBufferLimits[config.ClassPubSub] = config.OutputBufferLimit{Hard: 1 << 20}
	pub, pubConn := te.Client()
	sc := &slowConn{}
	sub := te.E.NewClient(sc)
	te.E.Call(sub, args("SUBSCRIBE", "ch"))
	te.E.FlushOutputs()
	msg := strings.Repeat("m", 64<<10)
	var cmds [][][]byte
	for i := 0; i < 100; i++ {
		cmds = append(cmds, args("PUBLISH", "ch", msg))
	}
	te.E.ProcessBatch(pub, cmds, func() {})
	if len(sub.W.B) != 0 {
		t.Errorf("the closing subscriber still holds %d bytes", len(sub.W.B))
	}
	te.E.FlushOutputs()
	if got := strings.Count(string(pubConn.Out), ":1\r\n"); got != 100 {
		t.Errorf("PUBLISH counted the subscriber %d times of 100", got)
	}
	if !sub.Freed() || !sc.aborted {
		t.Fatalf("subscriber not closed: freed %v, aborted %v", sub.Freed(), sc.aborted)
	}
	if sc.pending > 2<<20 {
		t.Errorf("%d bytes delivered to a client over a 1 MB limit", sc.pending)
	}
	if l := log.String(); !strings.Contains(l, "scheduled to be closed ASAP for overcoming of output buffer limits.") || !strings.Contains(l, "id=2 addr=127.0.0.1:1") {
		t.Errorf("log: %q", l)
	}
	pubConn.Out = pubConn.Out[:0]
	te.Expect(pub, pubConn, ":0\r\n", "PUBLISH", "ch", "x")
}

// TestOutputBufferNormalStopsPipeline: a normal client over its hard
// limit runs none of the commands after the one that passed it, and
// receives nothing.
func TestOutputBufferNormalStopsPipeline(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.OutputBufferLimits[config.ClassNormal] = config.OutputBufferLimit{Hard: 100000}
	cl, conn := te.Client()
	for i := 0; i < 150; i++ {
		te.Do(cl, conn, "RPUSH", "l", strings.Repeat("x", 1000))
	}
	sc := &slowConn{}
	slow := te.E.NewClient(sc)
	te.E.ProcessBatch(slow, [][][]byte{args("SET", "before", "1"), args("LRANGE", "l", "0", "-1"), args("SET", "after", "1")}, func() {})
	te.E.FlushOutputs()
	if !slow.Freed() || sc.pending != 0 {
		t.Fatalf("freed %v, %d bytes delivered", slow.Freed(), sc.pending)
	}
	te.Expect(cl, conn, ":1\r\n", "EXISTS", "before")
	te.Expect(cl, conn, ":0\r\n", "EXISTS", "after")
}

// TestClientListOutputFields: CLIENT LIST maps the queued output onto
// Redis's fields: the first 16 KB in the reply buffer (obl), the rest as
// 16 KB list blocks (oll) of omem bytes.
func TestClientListOutputFields(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	sc := &slowConn{pending: 50000}
	slow := te.E.NewClient(sc)
	te.E.Call(slow, args("CLIENT", "SETNAME", "slow"))
	out := te.Do(cl, conn, "CLIENT", "LIST")
	i := strings.Index(out, "name=slow")
	if i < 0 {
		t.Fatalf("no slow client in %q", out)
	}
	line := out[i:]
	line = line[:strings.IndexByte(line, '\n')]
	// 50000 pending plus SETNAME's +OK, not delivered yet.
	for _, want := range []string{" obl=16384 ", " oll=3 ", " omem=33621 ", " tot-mem=50005 "} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}
