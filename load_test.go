package lockkv_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// loadShape is how much of each kind of client TestLoad runs.
type loadShape struct {
	idle        int           // connections that connect, PING, and stay
	pipeliners  int           // clients sending deep pipelines and reading the replies
	depth       int           // commands per pipeline
	vanishers   int           // clients sending half a pipeline and leaving, again and again
	subscribers int           // subscribers that never read, renewed when closed
	publishers  int           // clients publishing to them
	lorises     int           // clients sending a request a byte at a time
	duration    time.Duration // how long the load runs
}

// TestLoad runs, against one server, many idle connections, deep
// pipelines, clients that vanish mid-pipeline, subscribers that never
// read while others publish, and slow-loris senders, while a well-behaved
// client keeps working. Every request of the well-behaved client is
// answered, correctly; the slow subscribers are closed by the output
// buffer limit; and the server's live heap stays under a bound made of
// what each client may hold: its read buffer, the batches of a pipeline
// in flight, a subscriber's output up to its hard limit. A moderate load
// always runs; LOCKKV_LOAD=1 runs as many connections as the file
// descriptor limit allows (raised to its hard maximum) for longer.
func TestLoad(t *testing.T) {
	shape := loadShape{idle: 300, pipeliners: 4, depth: 2000, vanishers: 4, subscribers: 4, publishers: 2, lorises: 10, duration: 3 * time.Second}
	if os.Getenv("LOCKKV_LOAD") == "1" {
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
			lim.Cur = lim.Max
			syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
			syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
		}
		// Each connection takes two descriptors in this process (both
		// ends); keep some for the rest.
		idle := min(int(lim.Cur)/2-600, 20000)
		t.Logf("file descriptor limit %d: %d idle connections", lim.Cur, idle)
		shape = loadShape{idle: idle, pipeliners: 32, depth: 20000, vanishers: 64, subscribers: 32, publishers: 8, lorises: 200, duration: 20 * time.Second}
	}
	srv, logs := runLogged(t)
	admin := dialRaw(t, srv.Addr())
	const pubsubHard = 1 << 20
	admin.send(string(testutil.Command("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 256kb 1")))
	admin.expect("+OK")
	admin.send(string(testutil.Command("SET", "small", strings.Repeat("v", 100))))
	admin.expect("+OK")
	runtime.GC()
	base := liveBytes()

	var (
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		errs    = make(chan error, 1024)
		peak    atomic.Uint64
		served  atomic.Int64
		closedS atomic.Int64
	)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	go func() { // memory sampler: the live heap after each collection
		for !stopped() {
			peak.Store(max(peak.Load(), liveBytes()))
			time.Sleep(10 * time.Millisecond)
		}
	}()

	// Idle connections, opened before the rest.
	idle := make([]net.Conn, 0, shape.idle)
	for i := 0; i < shape.idle; i++ {
		nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		idle = append(idle, nc)
		nc.Write([]byte("PING\r\n"))
	}
	for _, nc := range idle {
		nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		var b [7]byte
		if _, err := io.ReadFull(nc, b[:]); err != nil || string(b[:]) != "+PONG\r\n" {
			t.Fatalf("idle connection: %q %v", b, err)
		}
	}
	defer func() {
		for _, nc := range idle {
			nc.Close()
		}
	}()

	run := func(n int, f func(i int)) {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); f(i) }()
		}
	}
	// Deep pipelines whose replies are all read.
	run(shape.pipeliners, func(i int) {
		nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
		if err != nil {
			fail(err)
			return
		}
		defer nc.Close()
		key := "p" + strconv.Itoa(i)
		var pipe []byte
		for j := 0; j < shape.depth; j++ {
			pipe = append(pipe, testutil.Command("INCR", key)...)
		}
		r := bufio.NewReader(nc)
		for n := 0; !stopped(); n++ {
			go nc.Write(pipe)
			nc.SetReadDeadline(time.Now().Add(60 * time.Second))
			for j := 1; j <= shape.depth; j++ {
				l, err := r.ReadString('\n')
				if err != nil {
					fail(fmt.Errorf("pipeliner %d: %v", i, err))
					return
				}
				if want := ":" + strconv.Itoa(n*shape.depth+j) + "\r\n"; l != want {
					fail(fmt.Errorf("pipeliner %d: %q, want %q", i, l, want))
					return
				}
			}
		}
	})
	// Clients that send part of a pipeline and vanish.
	run(shape.vanishers, func(i int) {
		pipe := append(testutil.Command("GET", "small"), testutil.Command("INCR", "vanish")...)
		pipe = []byte(strings.Repeat(string(pipe), 200))
		for ; !stopped(); time.Sleep(10 * time.Millisecond) {
			nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
			if err != nil {
				fail(err)
				return
			}
			nc.Write(pipe[:len(pipe)/2+7]) // cut inside a request
			nc.(*net.TCPConn).SetLinger(0) // gone at once, no TIME_WAIT
			nc.Close()
		}
	})
	// Subscribers that never read, renewed when the server closes them
	// (a write then fails).
	run(shape.subscribers, func(i int) {
		for !stopped() {
			nc := testutil.DialSlowReader(t, srv.Addr()).NetConn()
			nc.Write(testutil.Command("SUBSCRIBE", "flood"))
			for !stopped() {
				time.Sleep(20 * time.Millisecond)
				if _, err := nc.Write(testutil.Command("PING")); err != nil {
					closedS.Add(1)
					break
				}
			}
			nc.Close()
		}
	})
	run(shape.publishers, func(i int) {
		nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
		if err != nil {
			fail(err)
			return
		}
		defer nc.Close()
		burst := []byte(strings.Repeat(string(testutil.Command("PUBLISH", "flood", strings.Repeat("f", 16<<10))), 16))
		r := bufio.NewReader(nc)
		for !stopped() {
			nc.Write(burst)
			nc.SetReadDeadline(time.Now().Add(60 * time.Second))
			for j := 0; j < 16; j++ {
				if _, err := r.ReadString('\n'); err != nil {
					fail(fmt.Errorf("publisher: %v", err))
					return
				}
			}
		}
	})
	// Slow-loris senders: a 100 KB value a byte at a time.
	run(shape.lorises, func(i int) {
		nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
		if err != nil {
			fail(err)
			return
		}
		defer nc.Close()
		req := "*3\r\n$3\r\nSET\r\n$5\r\nloris\r\n$100000\r\n" + strings.Repeat("l", 100000) + "\r\n"
		for j := 0; j < len(req) && !stopped(); j++ {
			if _, err := nc.Write([]byte{req[j]}); err != nil {
				fail(fmt.Errorf("loris: %v", err))
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	// The well-behaved client: every request answered, correctly.
	var maxWait time.Duration
	good := dialRaw(t, srv.Addr())
	deadline := time.Now().Add(shape.duration)
	for n := 0; time.Now().Before(deadline); n++ {
		start := time.Now()
		v := strconv.Itoa(n)
		good.send(string(testutil.Command("SET", "good", v)) + string(testutil.Command("GET", "good")))
		for _, want := range []string{"+OK", "$" + strconv.Itoa(len(v)), v} {
			l, err := good.ReadLine(60 * time.Second)
			if err != nil || l != want {
				t.Fatalf("well-behaved client, request %d: %q %v, want %q", n, l, err, want)
			}
		}
		maxWait = max(maxWait, time.Since(start))
		served.Add(1)
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	healthy(t, srv)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	kills := strings.Count(logs.String(), "class=pubsub")
	t.Logf("%d idle connections; well-behaved client served %d times, longest wait %v; %d slow subscribers closed by the server (%d seen)",
		shape.idle, served.Load(), maxWait, kills, closedS.Load())
	t.Logf("live heap %d MB at start, peak %d MB; heap peak in use %d MB; RSS %d MB",
		base>>20, peak.Load()>>20, ms.HeapInuse>>20, processRSS()>>20)
	if served.Load() < 10 {
		t.Errorf("well-behaved client served %d times", served.Load())
	}
	if kills == 0 {
		t.Error("no slow subscriber was closed")
	}
	// What each client may hold: a read buffer and client state for
	// every connection; 64 batches of 16 KB read ahead and a pipeline's
	// replies for a pipeliner; for a slow subscriber its output up to the
	// hard limit plus a write in progress, in at most two copies (the
	// engine's buffer being appended to the connection's); each
	// publisher's burst; and 16 MB for the runtime and the test itself.
	clients := int64(shape.idle + shape.pipeliners + shape.vanishers + shape.subscribers + shape.publishers + shape.lorises + 2)
	bound := int64(base) + clients*48<<10 +
		int64(shape.pipeliners)*(64*16<<10+int64(shape.depth)*16) +
		int64(shape.subscribers)*(2*(pubsubHard+64<<10)+16<<10) +
		int64(shape.publishers)*(16*(16<<10+64)) + 16<<20
	if p := int64(peak.Load()); p > bound {
		t.Errorf("live heap peaked at %d MB, over the %d MB the limits allow", p>>20, bound>>20)
	}
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
var liveMu sync.Mutex

// liveBytes is the heap the last collection found live.
func liveBytes() uint64 {
	liveMu.Lock()
	defer liveMu.Unlock()
	metrics.Read(liveSample)
	return liveSample[0].Value.Uint64()
}
