package lockkv_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Memory and time bounds for slow, greedy and vanishing clients (see
// DESIGN.md, "Bounds").

// runLogged starts a server whose warnings go to the returned buffer.
func runLogged(t *testing.T) (*lockkv.Server, *testutil.LogBuffer) {
	t.Helper()
	logs := &testutil.LogBuffer{}
	srv := lockkv.RunTWith(t, lockkv.Config{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	return srv, logs
}

// liveHeap collects garbage and returns the heap in use (server and test
// share the process).
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// processRSS reads the resident set of this process, 0 where unknown.
func processRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// drained reports whether the server closed nc within d, discarding what
// it sent.
func drained(nc net.Conn, d time.Duration) bool {
	nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, nc)
	var ne net.Error
	return err == nil || !(errorsAs(err, &ne) && ne.Timeout())
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// clientInfoLine returns the CLIENT LIST line of the client named name
// ("" when it is gone) and its omem.
func clientInfoLine(t testing.TB, c *rawConn, name string) (string, int64) {
	t.Helper()
	c.send("CLIENT LIST\r\n")
	head := c.line()
	n, _ := strconv.Atoi(strings.TrimPrefix(head, "$"))
	body := make([]byte, n+2)
	if _, err := io.ReadFull(c.Reader(), body); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.Contains(line, " name="+name+" ") {
			i := strings.Index(line, " omem=")
			omem, _ := strconv.ParseInt(strings.Fields(line[i+len(" omem="):])[0], 10, 64)
			return line, omem
		}
	}
	return "", 0
}

// TestSlowSubscriberIsBounded: a subscriber that never reads, sent 400
// one-megabyte messages, is closed at the pubsub class's default hard
// limit (32 MB of output waiting) with Redis's log line, and the server's
// memory stays within that limit, not the 400 MB published.
func TestSlowSubscriberIsBounded(t *testing.T) {
	srv, logs := runLogged(t)
	sub := testutil.DialSlowReader(t, srv.Addr()).NetConn()
	sub.Write(testutil.Command("CLIENT", "SETNAME", "slowsub"))
	sub.Write(testutil.Command("SUBSCRIBE", "ch"))
	r := bufio.NewReader(sub)
	sub.SetReadDeadline(time.Now().Add(5 * time.Second))
	for _, want := range []string{"+OK", "*3", "$9", "subscribe", "$2", "ch", ":1"} {
		if l, err := r.ReadString('\n'); err != nil || strings.TrimSuffix(l, "\r\n") != want {
			t.Fatalf("subscribe: %q %v, want %q", l, err, want)
		}
	}
	pub := dialRaw(t, srv.Addr())
	admin := dialRaw(t, srv.Addr())
	base := liveHeap()
	msg := testutil.Command("PUBLISH", "ch", strings.Repeat("m", 1<<20))
	var peak uint64
	var maxOmem int64
	receivers := 0
	for i := 0; i < 400; i++ {
		pub.send(string(msg))
		if pub.line() == ":1" {
			receivers++
		}
		if i%10 == 0 {
			peak = max(peak, liveHeap())
			if _, omem := clientInfoLine(t, admin, "slowsub"); omem > maxOmem {
				maxOmem = omem
			}
		}
	}
	t.Logf("subscriber received %d of 400 messages; omem up to %d; heap %d MB at start, peak %d MB; RSS %d MB",
		receivers, maxOmem, base>>20, peak>>20, processRSS()>>20)
	if receivers == 400 {
		t.Fatal("the subscriber was never closed")
	}
	if maxOmem == 0 || maxOmem >= 32<<20 {
		t.Errorf("CLIENT LIST omem up to %d: want some output shown, under the 32 MB hard limit", maxOmem)
	}
	// The hard limit, the message being written and what sockets hold.
	if bound := base + 96<<20; peak > bound {
		t.Errorf("heap peaked at %d MB, over %d MB", peak>>20, bound>>20)
	}
	if !drained(sub, 10*time.Second) {
		t.Error("the subscriber's connection is still open")
	}
	l := logs.String()
	for _, want := range []string{"level=WARN", "name=slowsub", "flags=P", "scheduled to be closed ASAP for overcoming of output buffer limits.", "class=pubsub"} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q: %s", want, l)
		}
	}
	healthy(t, srv)
}

// TestSlowReaderPipelineClosed: a client that sends a deep pipeline and
// does not read the replies is closed once the output waiting for it
// (in the engine and behind the connection's blocked write) passes the
// normal class's hard limit; no reply past the limit is sent, and the
// server keeps answering others.
func TestSlowReaderPipelineClosed(t *testing.T) {
	srv, logs := runLogged(t)
	admin := dialRaw(t, srv.Addr())
	admin.send(string(testutil.Command("CONFIG", "SET", "client-output-buffer-limit", "normal 8mb 0 0")))
	admin.expect("+OK")
	admin.send(string(testutil.Command("SET", "big", strings.Repeat("b", 100<<10))))
	admin.expect("+OK")
	slow := testutil.DialSlowReader(t, srv.Addr()).NetConn()
	slow.Write(testutil.Command("CLIENT", "SETNAME", "slowreader"))
	var ok [5]byte
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(slow, ok[:]); err != nil || string(ok[:]) != "+OK\r\n" {
		t.Fatalf("SETNAME: %q %v", ok, err)
	}
	var pipe []byte
	for i := 0; i < 2000; i++ {
		pipe = append(pipe, testutil.Command("GET", "big")...)
	}
	pipe = append(pipe, testutil.Command("SET", "after", "1")...)
	go slow.Write(pipe)
	testutil.Eventually(t, 30*time.Second, func() error {
		if line, _ := clientInfoLine(t, admin, "slowreader"); line != "" {
			return fmt.Errorf("the slow reader was not closed: %s", line)
		}
		return nil
	})
	admin.send(string(testutil.Command("EXISTS", "after")))
	admin.expect(":0")
	if !strings.Contains(logs.String(), "class=normal") {
		t.Errorf("log: %s", logs.String())
	}
	// What reached the client: less than the limit plus what sockets hold.
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _ := io.Copy(io.Discard, slow)
	if n > 8<<20+8<<20 {
		t.Errorf("%d bytes sent to a client closed at 8 MB", n)
	}
}

// TestQueryBufferLimitLogged: a client sending more than
// client-query-buffer-limit in one request is closed with Redis's log
// line, quoting the start of its input.
func TestQueryBufferLimitLogged(t *testing.T) {
	srv, logs := runLogged(t)
	admin := dialRaw(t, srv.Addr())
	admin.send(string(testutil.Command("CONFIG", "SET", "client-query-buffer-limit", "1mb")))
	admin.expect("+OK")
	c := dialRaw(t, srv.Addr())
	c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n")
	go c.NetConn().Write(bytes.Repeat([]byte("q"), 3000000))
	if !c.Closed(10 * time.Second) {
		t.Fatal("not closed")
	}
	// Redis shows the start of its query buffer, which holds a big
	// argument's data from its first byte. The reader closes the socket
	// as it hands the close to the command goroutine, which logs it.
	var l string
	testutil.Poll(10*time.Second, func() error {
		if l = logs.String(); !strings.Contains(l, "max query buffer length") {
			return errors.New("not logged")
		}
		return nil
	})
	for _, want := range []string{"Closing client that reached max query buffer length: id=2 addr=" + c.NetConn().LocalAddr().String(),
		"(qbuf initial bytes: ", strings.Repeat("q", 64)} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q: %s", want, l)
		}
	}
	admin.send(string(testutil.Command("EXISTS", "k")))
	admin.expect(":0")
}
