package server

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
)

// holdLoop holds the command goroutine until the returned func is called
// (at the latest when the test ends).
func holdLoop(t *testing.T, s *Server) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go s.Do(func(*engine.Engine) { close(held); <-done })
	<-held
	var once sync.Once
	release = func() { once.Do(func() { close(done) }) }
	t.Cleanup(release)
	return release
}

// readReplies reads n lines from r and checks they are want(0..n-1).
func readReplies(t *testing.T, r *bufio.Reader, n int, want func(i int) string) {
	t.Helper()
	for i := 0; i < n; i++ {
		l, err := r.ReadString('\n')
		if err != nil || l != want(i) {
			t.Fatalf("reply %d: %q %v, want %q", i, l, err, want(i))
		}
	}
}

// startCloseable starts a server with the engine's default settings
// and a request queue of queue entries (0: the default), and returns it
// with closeWithin, which fails the test if Close does not return within
// 10s (a reader that waits inside RawConn.Read deadlocks it); the
// server is then left as it is, not closed again at the test's end.
func startCloseable(t *testing.T, queue int) (s *Server, closeWithin func()) {
	t.Helper()
	cfg := Config{Engine: config.NewConfig(), Clock: testutil.SystemClock{}}
	cfg.Engine.LogLevel = new(slog.LevelVar)
	s = New(cfg)
	if queue > 0 {
		s.reqs = make(chan request, queue)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	var hung atomic.Bool
	t.Cleanup(func() {
		if !hung.Load() {
			s.Close()
		}
	})
	closeWithin = func() {
		t.Helper()
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			hung.Store(true)
			t.Fatal("Close does not return: a reader waits inside RawConn.Read")
		}
	}
	return s, closeWithin
}

// TestReaderReadsOnWhileBatchRuns: on Linux TCP the reader hands a
// pipeline over and reads the next one while the first has not run (the
// command goroutine writes the replies), up to maxOutstanding; the
// replies come back in order, and the buffer the pipelines' arguments
// point into is only reused once they ran.
func TestReaderReadsOnWhileBatchRuns(t *testing.T) {
	s := RunT(t)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(nc)
	c := serverConn(t, s, nc)
	if c.rw == nil {
		t.Fatal("no raw writer for a TCP connection on Linux")
	}
	for round := 0; round < 3; round++ {
		release := holdLoop(t, s)
		base := round * (maxOutstanding + 8)
		nc.Write([]byte("INCR n\r\n"))
		waitFlag(t, "the first pipeline handed over", func() bool { return c.await.Load() == 1 })
		nc.Write([]byte("INCR n\r\nINCR n\r\n"))
		waitFlag(t, "the second pipeline handed over while the first waits", func() bool { return c.await.Load() == 2 })
		// Past maxOutstanding the reader waits for the engine; what it
		// did not hand over yet follows in order.
		for i := 3; i < maxOutstanding+8; i++ {
			nc.Write([]byte("INCR n\r\n"))
			if i < maxOutstanding {
				want := int32(i)
				waitFlag(t, "pipeline "+strconv.Itoa(i)+" handed over", func() bool { return c.await.Load() == want })
			}
		}
		release()
		readReplies(t, r, maxOutstanding+8, func(i int) string { return ":" + strconv.Itoa(base+i+1) + "\r\n" })
		waitFlag(t, "every pipeline to finish", func() bool { return c.await.Load() == 0 })
	}
}

// TestReaderHalfClose: a client that sends its requests and shuts down
// its writing side gets every reply, though its reader reads the end
// before the requests ran.
func TestReaderHalfClose(t *testing.T) {
	s := RunT(t)
	for round := 0; round < 2; round++ {
		nc, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		c := serverConn(t, s, nc)
		release := holdLoop(t, s)
		nc.Write([]byte("INCR h" + strconv.Itoa(round) + "\r\n"))
		waitFlag(t, "the first pipeline handed over", func() bool { return c.await.Load() == 1 })
		nc.Write([]byte("INCR h" + strconv.Itoa(round) + "\r\nINCR h" + strconv.Itoa(round) + "\r\n"))
		nc.(*net.TCPConn).CloseWrite()
		waitFlag(t, "the second pipeline handed over", func() bool { return c.await.Load() == 2 })
		release()
		got, err := io.ReadAll(nc)
		if want := ":1\r\n:2\r\n:3\r\n"; string(got) != want || err != nil {
			t.Fatalf("got %q %v, want %q and EOF", got, err, want)
		}
	}
}

// TestReaderProtocolErrorAfterOutstanding: a protocol error read while an
// earlier pipeline has not run yet is answered after that pipeline's
// replies, then the connection closes.
func TestReaderProtocolErrorAfterOutstanding(t *testing.T) {
	s, closeWithin := startCloseable(t, 0)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := serverConn(t, s, nc)
	release := holdLoop(t, s)
	nc.Write([]byte("INCR n\r\n"))
	waitFlag(t, "the first pipeline handed over", func() bool { return c.await.Load() == 1 })
	nc.Write([]byte("INCR n\r\n*1\r\n$x\r\n"))
	waitFlag(t, "the second pipeline handed over", func() bool { return c.await.Load() == 2 })
	release()
	got, err := io.ReadAll(nc)
	if want := ":1\r\n:2\r\n-ERR Protocol error: invalid bulk length\r\n"; string(got) != want || err != nil {
		t.Errorf("got %q %v, want %q and EOF", got, err, want)
	}
	closeWithin()
}

// TestReaderQueueFull: a reader whose hand-over finds the command
// goroutine's queue full waits for room outside RawConn.Read: the
// command goroutine closing its connection meanwhile (CLIENT KILL, QUIT:
// net.Conn.Close waits for the reader to leave RawConn.Read) does not
// deadlock, nor does a server Close. The requests handed over run in
// order.
func TestReaderQueueFull(t *testing.T) {
	s, closeWithin := startCloseable(t, 2)
	const n = 4
	var ncs [n]net.Conn
	var rs [n]*bufio.Reader
	var cs [n]*conn
	for i := range ncs {
		nc, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(20 * time.Second))
		cs[i] = serverConn(t, s, nc)
		ncs[i], rs[i] = nc, bufio.NewReader(nc)
	}
	a := &s.arrival
	fill := func() {
		// Two connections fill the queue, the third one's reader waits
		// for room with its pass begun.
		for i, nc := range ncs[:3] {
			if i == 2 {
				waitFlag(t, "the queue to fill", func() bool { return len(s.reqs) == cap(s.reqs) })
				waitFlag(t, "the passes to end", func() bool { return a.enter.Load() == a.exit.Load() })
			}
			nc.Write([]byte("INCR k" + strconv.Itoa(i) + "\r\nINCR k" + strconv.Itoa(i) + "\r\n"))
		}
		waitFlag(t, "the third reader to wait for room", func() bool { return a.enter.Load() > a.exit.Load() })
	}

	release := holdLoop(t, s)
	fill()
	release()
	for i := range ncs[:3] {
		readReplies(t, rs[i], 2, func(j int) string { return ":" + strconv.Itoa(j+1) + "\r\n" })
	}

	// The command goroutine aborts the waiting reader's connection.
	go_, aborted, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go s.Do(func(*engine.Engine) {
		<-go_
		cs[2].Abort()
		close(aborted)
		<-done
	})
	var once sync.Once
	unblock := func() { once.Do(func() { close(done) }) }
	defer unblock()
	fill()
	close(go_)
	select {
	case <-aborted:
	case <-time.After(10 * time.Second):
		t.Fatal("CLIENT KILL of a reader waiting for room does not return: it waits inside RawConn.Read")
	}
	unblock()
	for i := range ncs[:2] {
		readReplies(t, rs[i], 2, func(j int) string { return ":" + strconv.Itoa(j+3) + "\r\n" })
	}
	if _, err := rs[2].ReadString('\n'); err == nil {
		t.Fatal("the killed connection answered")
	}
	// A server Close while a reader waits for room.
	release = holdLoop(t, s)
	for i, nc := range ncs[:2] {
		nc.Write([]byte("INCR k" + strconv.Itoa(i) + "\r\n"))
	}
	waitFlag(t, "the queue to fill", func() bool { return len(s.reqs) == cap(s.reqs) })
	waitFlag(t, "the passes to end", func() bool { return a.enter.Load() == a.exit.Load() })
	ncs[3].Write([]byte("INCR k3\r\n"))
	waitFlag(t, "the fourth reader to wait for room", func() bool { return a.enter.Load() > a.exit.Load() })
	go func() {
		for {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		release()
	}()
	closeWithin()
}

// TestReaderCloseMidRead: connections pipelining without pause are
// killed (CLIENT KILL), quit (QUIT in the middle of a pipeline) and
// closed with the server while their readers parse and hand over inside
// RawConn.Read; nothing deadlocks, a QUIT's connection gets the replies
// before it and +OK, then EOF. Run with -race.
func TestReaderCloseMidRead(t *testing.T) {
	s, closeWithin := startCloseable(t, 0)
	var wg, quitters sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 64)
	client := func(i int, quit bool) {
		defer wg.Done()
		if quit {
			defer quitters.Done()
		}
		nc, err := net.Dial("tcp", s.Addr())
		if err != nil {
			errs <- err
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(30 * time.Second))
		r := bufio.NewReader(nc)
		if quit {
			// Not killed: it quits.
			nc.Write([]byte("CLIENT SETNAME quitter\r\n"))
			if l, err := r.ReadString('\n'); l != "+OK\r\n" || err != nil {
				errs <- fmt.Errorf("CLIENT SETNAME: %q %v", l, err)
				return
			}
		}
		pipe := strings.Repeat("INCR c"+strconv.Itoa(i)+"\r\n", 1+i%7)
		for j := 0; ; j++ {
			select {
			case <-stop:
				return
			default:
			}
			if quit && j == 50 {
				nc.Write([]byte("INCR q" + strconv.Itoa(i) + "\r\nQUIT\r\nINCR q" + strconv.Itoa(i) + "\r\n"))
				got, err := io.ReadAll(r)
				if !strings.HasSuffix(string(got), ":1\r\n+OK\r\n") || err != nil {
					errs <- fmt.Errorf("after QUIT: %q %v", got, err)
				}
				return
			}
			if _, err := nc.Write([]byte(pipe)); err != nil {
				return // killed
			}
			for k := 0; k < 1+i%7; k++ {
				if _, err := r.ReadString('\n'); err != nil {
					return // killed
				}
			}
		}
	}
	start := func(i int, quit bool) {
		wg.Add(1)
		if quit {
			quitters.Add(1)
		}
		go client(i, quit)
	}
	for i := 0; i < 12; i++ {
		start(i, i%4 == 0)
	}
	killer, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close()
	killer.SetDeadline(time.Now().Add(30 * time.Second))
	kr := bufio.NewReader(killer)
	var killerID string
	killer.Write([]byte("CLIENT ID\r\n"))
	if l, err := kr.ReadString('\n'); err != nil {
		t.Fatal(err)
	} else {
		killerID = strings.TrimSuffix(strings.TrimPrefix(l, ":"), "\r\n")
	}
	for round := 0; round < 20; round++ {
		// Every client but the killer, by ID, as they come.
		var ids []int64
		onLoop(s.Do, func() {
			for id, cl := range s.eng.Clients() {
				if strconv.FormatInt(id, 10) != killerID && cl.Name != "quitter" {
					ids = append(ids, id)
				}
			}
		})
		for _, id := range ids[:len(ids)/2] {
			killer.Write([]byte("CLIENT KILL ID " + strconv.FormatInt(id, 10) + "\r\n"))
			if _, err := kr.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		start(100+round, round%3 == 0)
		time.Sleep(2 * time.Millisecond) // let the new clients pipeline a while
	}
	quitters.Wait()
	closeWithin()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
