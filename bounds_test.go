package lockkv_test

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
)

// Memory and time bounds for slow, greedy and vanishing clients (see
// DESIGN.md, "Bounds").

// syncBuffer collects a server's log lines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runLogged starts a server whose warnings go to the returned buffer.
func runLogged(t *testing.T) (*lockkv.Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	srv := lockkv.RunTWith(t, lockkv.Config{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	return srv, logs
}

// command encodes a request.
func command(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// dialSlowReader connects with a small receive buffer, as a client that
// reads slowly or not at all: the server's output backs up early.
func dialSlowReader(t testing.TB, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
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
	if _, err := io.ReadFull(c.r, body); err != nil {
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
	sub := dialSlowReader(t, srv.Addr())
	sub.Write(command("CLIENT", "SETNAME", "slowsub"))
	sub.Write(command("SUBSCRIBE", "ch"))
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
	msg := command("PUBLISH", "ch", strings.Repeat("m", 1<<20))
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
	admin.send(string(command("CONFIG", "SET", "client-output-buffer-limit", "normal 8mb 0 0")))
	admin.expect("+OK")
	admin.send(string(command("SET", "big", strings.Repeat("b", 100<<10))))
	admin.expect("+OK")
	slow := dialSlowReader(t, srv.Addr())
	slow.Write(command("CLIENT", "SETNAME", "slowreader"))
	var ok [5]byte
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(slow, ok[:]); err != nil || string(ok[:]) != "+OK\r\n" {
		t.Fatalf("SETNAME: %q %v", ok, err)
	}
	var pipe []byte
	for i := 0; i < 2000; i++ {
		pipe = append(pipe, command("GET", "big")...)
	}
	pipe = append(pipe, command("SET", "after", "1")...)
	go slow.Write(pipe)
	gone := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if line, _ := clientInfoLine(t, admin, "slowreader"); line == "" {
			gone = true
			break
		}
		admin.send("PING\r\n")
		admin.expect("+PONG")
	}
	if !gone {
		t.Fatal("the slow reader was not closed")
	}
	admin.send(string(command("EXISTS", "after")))
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
	admin.send(string(command("CONFIG", "SET", "client-query-buffer-limit", "1mb")))
	admin.expect("+OK")
	c := dialRaw(t, srv.Addr())
	c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n")
	go c.nc.Write(bytes.Repeat([]byte("q"), 3000000))
	if !c.closed(10 * time.Second) {
		t.Fatal("not closed")
	}
	// Redis shows the start of its query buffer, which holds a big
	// argument's data from its first byte. The reader closes the socket
	// as it hands the close to the command goroutine, which logs it.
	var l string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if l = logs.String(); strings.Contains(l, "max query buffer length") {
			break
		}
	}
	for _, want := range []string{"Closing client that reached max query buffer length: id=2 addr=" + c.nc.LocalAddr().String(),
		"(qbuf initial bytes: ", strings.Repeat("q", 64)} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q: %s", want, l)
		}
	}
	admin.send(string(command("EXISTS", "k")))
	admin.expect(":0")
}
