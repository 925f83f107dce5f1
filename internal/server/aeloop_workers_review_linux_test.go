//go:build linux

package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/internal/testutil"
)

// The review of the event loop's I/O workers (aeIO, deferred writes,
// eventfd coalescing): each test runs with 4 I/O threads used for every
// round (runAE "t"), and on the loop alone ("a") where the behaviour is
// the same.

// aeReadAll reads what c gets until the end of the connection.
func aeReadAll(t *testing.T, c *aeClient) []byte {
	t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c.br)
	if err != nil {
		t.Fatalf("no end of the connection: %v (after %d bytes)", err, len(b))
	}
	return b
}

// TestAELoopWorkersCloseAfterDeferredReply: a reply larger than one
// write, deferred to the end of the round, then QUIT, CLIENT KILL of the
// client itself, or a protocol error in the same pipeline: the whole
// reply goes out, then the closing reply, then the end.
func TestAELoopWorkersCloseAfterDeferredReply(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			setup := aeDial(t, s)
			big := strings.Repeat("y", 300_000)
			if got := setup.do("SET", "big", big); got != "+OK\r\n" {
				t.Fatal(got)
			}
			bigReply := "$300000\r\n" + big + "\r\n"
			for _, tc := range []struct {
				name string
				tail string // raw bytes after GET big
				want string
			}{
				{"QUIT", "*1\r\n$4\r\nQUIT\r\n", "+OK\r\n"},
				{"protocol error", "*1\r\n$4\r\nPING\r\n*x\r\n", "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"},
				{"CLIENT KILL self", "*3\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$%s\r\n%s\r\n", "+OK\r\n"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					c := aeDial(t, s)
					tail := tc.tail
					if strings.Contains(tail, "%s") {
						// CLIENT KILL addr of itself (the old form).
						addr := c.nc.LocalAddr().String()
						tail = fmt.Sprintf(tail, strconv.Itoa(len(addr)), addr)
					}
					req := "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n" + tail
					if _, err := c.nc.Write([]byte(req)); err != nil {
						t.Fatal(err)
					}
					got := aeReadAll(t, c)
					if want := bigReply + tc.want; string(got) != want {
						t.Fatalf("got %d bytes ending %q, want %d ending %q", len(got), tail30(got), len(want), tail30([]byte(want)))
					}
				})
			}
		})
	}
}

func tail30(b []byte) []byte {
	if len(b) > 60 {
		return b[len(b)-60:]
	}
	return b
}

// TestAELoopWorkersPubSubOrder: many publishers' pipelines reach every
// subscriber whole and, per publisher, in order, while the workers write
// the subscribers' deferred output.
func TestAELoopWorkersPubSubOrder(t *testing.T) {
	s := runAE(t, "t")
	const subs, pubs, msgs = 4, 4, 200
	var subsC []*aeClient
	for i := 0; i < subs; i++ {
		c := aeDial(t, s)
		if got := c.do("SUBSCRIBE", "ch"); !strings.Contains(got, "subscribe") {
			t.Fatal(got)
		}
		subsC = append(subsC, c)
	}
	var wg sync.WaitGroup
	for p := 0; p < pubs; p++ {
		c := aeDial(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w resp.Writer
			for m := 0; m < msgs; m++ {
				w.Array(3)
				w.BulkString("PUBLISH")
				w.BulkString("ch")
				w.BulkString(fmt.Sprintf("%d:%d:%s", p, m, strings.Repeat("z", (p*msgs+m)%3000)))
			}
			c.nc.Write(w.B)
			for m := 0; m < msgs; m++ {
				if _, err := resp.ReadReply(c.br, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i, c := range subsC {
		next := make([]int, pubs)
		for k := 0; k < pubs*msgs; k++ {
			got, err := resp.ReadReply(c.br, nil)
			if err != nil {
				t.Fatalf("subscriber %d message %d: %v", i, k, err)
			}
			parts := bytes.Split(got, []byte("\r\n"))
			f := strings.SplitN(string(parts[len(parts)-2]), ":", 3)
			p, _ := strconv.Atoi(f[0])
			m, _ := strconv.Atoi(f[1])
			if p < 0 || p >= pubs || m != next[p] {
				t.Fatalf("subscriber %d: message %d:%d, want %d:%d", i, p, m, p, next[min(max(p, 0), pubs-1)])
			}
			next[p]++
		}
	}
	wg.Wait()
}

// TestAELoopWorkersSlowRequests: with every request reported as slow, a
// pipeline whose replies the loop defers to the end of the round is
// reported once, after its replies went out.
func TestAELoopWorkersSlowRequests(t *testing.T) {
	t.Setenv("LOCKKV_AELOOP", "a")
	t.Setenv("LOCKKV_AELOOP_THREADS", "4")
	t.Setenv("LOCKKV_AELOOP_FANOUT", "1")
	var mu sync.Mutex
	var n int
	s := runWith(t, Config{
		SlowRequestThreshold: time.Nanosecond,
		OnSlowRequest: func(r SlowRequest) {
			mu.Lock()
			n += r.Commands
			mu.Unlock()
		},
	})
	c := aeDial(t, s)
	big := strings.Repeat("q", 200_000)
	if got := c.do("SET", "big", big); got != "+OK\r\n" {
		t.Fatal(got)
	}
	const rounds = 50
	for i := 0; i < rounds; i++ {
		c.send("GET", "big")
		if got := c.receive(); len(got) != 200_000+len("$200000\r\n\r\n") {
			t.Fatalf("GET big: %d bytes", len(got))
		}
	}
	testutil.Eventually(t, 5*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if n != rounds+1 {
			return fmt.Errorf("%d commands reported slow, want %d", n, rounds+1)
		}
		return nil
	})
}

// TestAELoopWorkersCloseStopsWorkers: Server.Close while clients keep the
// workers busy returns, and the workers end.
func TestAELoopWorkersCloseStopsWorkers(t *testing.T) {
	s := runAE(t, "t")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 6; i++ {
		c := aeDial(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var w resp.Writer
				for j := 0; j < 20; j++ {
					w.Array(2)
					w.BulkString("INCR")
					w.BulkString("n")
				}
				if _, err := c.nc.Write(w.B); err != nil {
					return
				}
				for j := 0; j < 20; j++ {
					if _, err := resp.ReadReply(c.br, nil); err != nil {
						return
					}
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
	close(stop)
	wg.Wait()
	testutil.Eventually(t, 5*time.Second, func() error {
		buf := make([]byte, 1<<20)
		st := string(buf[:runtime.Stack(buf, true)])
		if n := strings.Count(st, "(*aeIO).work("); n > 0 {
			return fmt.Errorf("%d I/O workers still run after Close", n)
		}
		return nil
	})
}

// TestAELoopWorkersClusterNode: on a cluster node the replies come with
// Raft's applies (through the eventfd); with the workers writing them
// and Do calls waking the loop meanwhile, every client gets every reply.
func TestAELoopWorkersClusterNode(t *testing.T) {
	t.Setenv("LOCKKV_AELOOP", "a")
	t.Setenv("LOCKKV_AELOOP_THREADS", "4")
	t.Setenv("LOCKKV_AELOOP_FANOUT", "1")
	s, _ := runNode(t)
	stop := make(chan struct{})
	var dwg sync.WaitGroup
	for i := 0; i < 3; i++ {
		dwg.Add(1)
		go func() {
			defer dwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s.Do(func(*engine.Engine) {})
			}
		}()
	}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		c := aeDial(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				var w resp.Writer
				for j := 0; j < 10; j++ {
					w.Array(2)
					w.BulkString("INCR")
					w.BulkString("n" + strconv.Itoa(i))
				}
				if _, err := c.nc.Write(w.B); err != nil {
					t.Error(err)
					return
				}
				for j := 0; j < 10; j++ {
					got, err := resp.ReadReply(c.br, nil)
					if err != nil {
						t.Errorf("client %d round %d: %v", i, r, err)
						return
					}
					if want := ":" + strconv.Itoa(r*10+j+1) + "\r\n"; string(got) != want {
						t.Errorf("client %d: %q, want %q", i, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	dwg.Wait()
}

// TestAELoopWorkersWakesDuringBusyScript: while a script is busy the
// nested rounds read the eventfd; Do calls, new connections and TLS-less
// clients that came meanwhile are all served once it ends.
func TestAELoopWorkersWakesDuringBusyScript(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			scripter, killer := aeDial(t, s), aeDial(t, s)
			if got := killer.do("CONFIG", "SET", "busy-reply-threshold", "20"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			for round := 0; round < 5; round++ {
				scripter.send("EVAL", "while true do end", "0")
				awaitBusy(t, killer, "PING")
				var wg sync.WaitGroup
				done := make(chan struct{}, 64)
				for i := 0; i < 8; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s.Do(func(*engine.Engine) {})
						done <- struct{}{}
					}()
				}
				var news []*aeClient
				for i := 0; i < 4; i++ {
					c := aeDial(t, s)
					c.send("PING")
					news = append(news, c)
				}
				time.Sleep(30 * time.Millisecond)
				if got := killer.do("SCRIPT", "KILL"); got != "+OK\r\n" {
					t.Fatalf("SCRIPT KILL: %q", got)
				}
				if got := scripter.receive(); !strings.HasPrefix(got, "-ERR Script killed") {
					t.Fatalf("the killed script: %q", got)
				}
				ch := make(chan struct{})
				go func() { wg.Wait(); close(ch) }()
				select {
				case <-ch:
				case <-time.After(10 * time.Second):
					t.Fatalf("round %d: %d of 8 Do calls returned within 10 s of the script's end", round, len(done))
				}
				for _, c := range news {
					if got := c.receive(); got != "+PONG\r\n" && got != busyReply {
						t.Fatalf("a client that connected during the script: %q", got)
					}
				}
			}
		})
	}
}

// TestAELoopWorkersIdleOutputBuffer: with I/O workers every reply goes
// through the connection's output buffer (deferred to the end of the
// round), and the buffer was kept once written, up to 64 KB a
// connection however long it stays idle: clients that each read one
// 50 KB reply kept 50 KB apiece, on top of the engine's reply buffer,
// which the loop without workers does not (the socket takes the reply at
// once). Redis shrinks an idle client's reply buffer (clientsCron); the
// loop's cron drops an empty output buffer larger than readChunk.
func TestAELoopWorkersIdleOutputBuffer(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			const clients = 16
			val := strings.Repeat("v", 50_000)
			setup := aeDial(t, s)
			if got := setup.do("SET", "v", val); got != "+OK\r\n" {
				t.Fatal(got)
			}
			for i := 0; i < clients; i++ {
				c := aeDial(t, s)
				if got := c.do("GET", "v"); len(got) != len(val)+len("$50000\r\n\r\n") {
					t.Fatalf("GET: %d bytes", len(got))
				}
			}
			testutil.Eventually(t, 10*time.Second, func() error {
				var kept, conns int
				s.Do(func(*engine.Engine) {
					for _, c := range s.ae.conns {
						if c != nil && !c.closed && len(c.out) == 0 {
							conns++
							kept += cap(c.ob)
						}
					}
				})
				if kept > conns*readChunk {
					return fmt.Errorf("%d idle connections keep %d bytes of output buffers", conns, kept)
				}
				return nil
			})
		})
	}
}

// TestAELoopWorkersInfoCounters: INFO's io_threaded_reads_processed and
// io_threaded_writes_processed count the reads and writes the workers'
// rounds did (Redis's stat_io_reads_processed, stat_io_writes_processed:
// the clients of each round handed to the threads); they were always 0.
// CONFIG RESETSTAT zeroes them; without workers they stay 0.
func TestAELoopWorkersInfoCounters(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "a" {
				t.Setenv("LOCKKV_AELOOP_THREADS", "1")
			}
			s := runAE(t, mode)
			c := aeDial(t, s)
			stat := func(name string) int64 {
				t.Helper()
				info := c.do("INFO", "stats")
				i := strings.Index(info, "\r\n"+name+":")
				if i < 0 {
					t.Fatalf("INFO stats has no %s", name)
				}
				v := info[i+len(name)+3:]
				n, err := strconv.ParseInt(v[:strings.IndexByte(v, '\r')], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			for i := 0; i < 10; i++ {
				if got := c.do("PING"); got != "+PONG\r\n" {
					t.Fatal(got)
				}
			}
			reads, writes := stat("io_threaded_reads_processed"), stat("io_threaded_writes_processed")
			if mode == "t" && (reads < 10 || writes < 10) {
				t.Errorf("after 10 PINGs on the workers: %d reads and %d writes threaded, want at least 10 each", reads, writes)
			}
			if mode == "a" && (reads != 0 || writes != 0) {
				t.Errorf("no workers: %d reads and %d writes threaded", reads, writes)
			}
			if got := c.do("CONFIG", "RESETSTAT"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			// The INFO itself was read on the workers, and RESETSTAT's
			// reply written there: at most one of each.
			if r := stat("io_threaded_reads_processed"); r > 1 {
				t.Errorf("after CONFIG RESETSTAT: %d reads threaded", r)
			}
		})
	}
}

// TestAELoopBusyCallerBatchNotLeftWaiting: a client unblocked from BLPOP
// resumes its pipeline in FlushOutputs, after runBatches; its next
// EVAL goes busy, and the request it sends meanwhile (read, as the
// client is still held) waits in l.ran for the next runBatches
// (serveWhileBusy keeps the script's caller's batches). The loop then
// must not sleep as if idle: work did not count l.ran, so the request
// waited for the next cron (up to 1/hz) or another client's event.
func TestAELoopBusyCallerBatchNotLeftWaiting(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			ctl, x, y := aeDial(t, s), aeDial(t, s), aeDial(t, s)
			if got := ctl.do("CONFIG", "SET", "busy-reply-threshold", "20"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			var idleWithBatch sync.Mutex
			var slept []int
			s.Do(func(*engine.Engine) {
				s.ae.beforeSleep = func(work bool) {
					if !work && len(s.ae.ran) > 0 {
						idleWithBatch.Lock()
						slept = append(slept, len(s.ae.ran))
						idleWithBatch.Unlock()
					}
				}
			})
			x.send("BLPOP", "l", "0")
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := ctl.do("INFO", "clients"); !strings.Contains(got, "\r\nblocked_clients:1\r\n") {
					return errors.New("x is not blocked yet")
				}
				return nil
			})
			x.send("EVAL", "while true do end", "0") // waits behind the BLPOP
			if got := y.do("LPUSH", "l", "a"); got != ":1\r\n" {
				t.Fatal(got)
			}
			awaitBusy(t, ctl, "PING")
			x.send("PING")
			if got := ctl.do("PING"); got != busyReply { // a nested round after x's PING came
				t.Fatalf("PING: %q", got)
			}
			if got := ctl.do("SCRIPT", "KILL"); got != "+OK\r\n" {
				t.Fatalf("SCRIPT KILL: %q", got)
			}
			if got := x.receive(); got != "*2\r\n$1\r\nl\r\n$1\r\na\r\n" {
				t.Fatalf("BLPOP: %q", got)
			}
			if got := x.receive(); !strings.HasPrefix(got, "-ERR Script killed") {
				t.Fatalf("EVAL: %q", got)
			}
			if got := x.receive(); got != "+PONG\r\n" {
				t.Fatalf("PING: %q", got)
			}
			idleWithBatch.Lock()
			defer idleWithBatch.Unlock()
			if len(slept) > 0 {
				t.Errorf("the loop went to sleep as if idle %d times with parsed batches waiting in l.ran (%v)", len(slept), slept)
			}
		})
	}
}
