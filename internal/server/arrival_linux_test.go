package server

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestArrivalStamps: requests sent one after the other on two connections
// are stamped in that order, whichever reader reads first.
func TestArrivalStamps(t *testing.T) {
	goroutinePath(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var clients, servers [2]net.Conn
	for i := range clients {
		if clients[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		defer clients[i].Close()
		if servers[i], err = ln.Accept(); err != nil {
			t.Fatal(err)
		}
		defer servers[i].Close()
	}
	s := &Server{}
	defer s.arrival.shut()
	a, b := newArrivalReader(newConn(s, servers[0])), newArrivalReader(newConn(s, servers[1]))
	if a == nil || b == nil {
		t.Fatal("no arrivalReader for a TCP connection")
	}
	buf := make([]byte, 16)
	// The kernel turns receive timestamps on a moment after the first
	// socket asks (a deferred static key); until then a read is stamped
	// when it happens. Wait until a byte read 5ms after it was sent
	// carries its arrival.
	for deadline := time.Now().Add(5 * time.Second); ; {
		clients[0].Write([]byte("w"))
		time.Sleep(5 * time.Millisecond)
		_, at, err := a.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().UnixNano()-at >= int64(4*time.Millisecond) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("reads are stamped when they happen, not when the bytes arrived")
		}
	}
	for i := 0; i < 500; i++ {
		clients[0].Write([]byte("A"))
		clients[1].Write([]byte("B"))
		// Read the later one first, as a reader woken first would.
		_, tb, err := b.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		_, ta, err := a.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if ta > tb {
			t.Fatalf("round %d: A stamped %d after B %d", i, ta, tb)
		}
	}
}

// TestArrivalReadAllocs: reading a request allocates nothing (the
// garbage of a read per request made a third of a loaded server's GC
// work), and the reader still reports the bytes, their stamp and EOF.
func TestArrivalReadAllocs(t *testing.T) {
	goroutinePath(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	s := &Server{}
	defer s.arrival.shut()
	r := newArrivalReader(newConn(s, server))
	if r == nil {
		t.Fatal("no arrivalReader for a TCP connection")
	}
	req := []byte("*1\r\n$4\r\nPING\r\n")
	buf := make([]byte, 64)
	read := func() {
		if _, err := client.Write(req); err != nil {
			t.Fatal(err)
		}
		got := 0
		for got < len(req) {
			n, at, err := r.Read(buf[got:])
			if err != nil || at == 0 {
				t.Fatalf("Read: %d bytes, stamp %d, %v", n, at, err)
			}
			got += n
		}
		if string(buf[:got]) != string(req) {
			t.Fatalf("read %q, want %q", buf[:got], req)
		}
		r.handed()
	}
	read() // the first read registers the socket with the poller
	if allocs := testing.AllocsPerRun(200, read); allocs != 0 {
		t.Errorf("a read allocates %v times, want 0", allocs)
	}
	client.Close()
	if n, _, err := r.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the peer closed: %d bytes, %v; want 0, EOF", n, err)
	}
}

// onLoop runs fn through do (Server.Do) without naming the engine's type.
func onLoop[E any](do func(func(E)), fn func()) { do(func(E) { fn() }) }

// waitFlag polls cond until it holds, failing the test after 10s.
func waitFlag(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestLoopAwaitsBusyReader: a client's SUBSCRIBE reaches the kernel while
// its reader is still busy with the reply before (held here in flushOut,
// as a reader preempted there is), then its PUBLISH on another connection
// is read at once. The loop waits for the busy reader, so the subscriber
// gets the message, as with Redis.
func TestLoopAwaitsBusyReader(t *testing.T) {
	goroutinePath(t)
	defer func(d time.Duration) { awaitLimit = d }(awaitLimit)
	awaitLimit = time.Minute
	s := RunT(t)
	dial := func() (net.Conn, *bufio.Reader) {
		nc, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(30 * time.Second))
		return nc, bufio.NewReader(nc)
	}
	subNC, subR := dial()
	pubNC, pubR := dial()
	sub := serverConn(t, s, subNC)
	serverConn(t, s, pubNC)
	locked := false
	defer func() {
		if locked {
			sub.wmu.Unlock()
		}
	}()
	for round := 0; round < 5; round++ {
		sub.wmu.Lock() // the reader will stop in flushOut
		locked = true
		subNC.Write([]byte("PING\r\n"))
		waitFlag(t, "the PING to finish", func() bool { sub.mu.Lock(); defer sub.mu.Unlock(); return len(sub.out) > 0 })
		subNC.Write([]byte("SUBSCRIBE ch\r\n"))
		time.Sleep(time.Millisecond) // its bytes arrive first
		pubNC.Write([]byte("PUBLISH ch x\r\n"))
		waitFlag(t, "the loop to wait", s.arrival.waiting.Load)
		sub.wmu.Unlock()
		locked = false
		expectSubscribedFirst(t, round, pubR, subR, subNC, "+PONG\r\n")
	}
}

// TestLoopStuckReader: a reader that does not take its input (held in
// flushOut, as one writing to a client that does not read is) holds the
// loop up once, for awaitLimit; then the loop stops waiting for it until
// it reads again and slowBackoff has passed, and the server serves
// everyone meanwhile.
func TestLoopStuckReader(t *testing.T) {
	goroutinePath(t)
	defer func(d time.Duration) { awaitLimit = d }(awaitLimit)
	awaitLimit = 50 * time.Millisecond
	s := RunT(t)
	stuckNC, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer stuckNC.Close()
	stuck := serverConn(t, s, stuckNC)
	stuck.wmu.Lock()
	locked := true
	defer func() {
		if locked {
			stuck.wmu.Unlock()
		}
	}()
	stuckNC.Write([]byte("PING\r\n"))
	waitFlag(t, "the PING to finish", func() bool { stuck.mu.Lock(); defer stuck.mu.Unlock(); return len(stuck.out) > 0 })
	stuckNC.Write([]byte("PING\r\n"))
	time.Sleep(time.Millisecond)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(nc)
	for i := 0; i < 50; i++ {
		nc.Write([]byte("INCR n\r\n"))
		if l, err := r.ReadString('\n'); err != nil || l != ":"+strconv.Itoa(i+1)+"\r\n" {
			t.Fatalf("INCR %d: %q %v", i, l, err)
		}
	}
	var marked bool
	onLoop(s.Do, func() { marked = stuck.slowAt == stuck.enters.Load()+1 && stuck.slowUntil > monoNow() })
	if !marked {
		t.Fatal("the stuck reader is not marked: the loop would wait for it again")
	}
	stuck.wmu.Unlock()
	locked = false
	stuckNC.SetDeadline(time.Now().Add(10 * time.Second))
	want := "+PONG\r\n+PONG\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(stuckNC, got); err != nil || string(got) != want {
		t.Fatalf("stuck client got %q %v", got, err)
	}
}

// TestArrivalCountsBalance: after pipelined and unpipelined load on many
// connections and partial requests, with the clients idle and then gone,
// every reader's pass has ended and the loop waits for no one: an idle
// server's loop does not wait.
func TestArrivalCountsBalance(t *testing.T) {
	goroutinePath(t)
	s := RunT(t)
	a := &s.arrival
	check := func(when string) {
		t.Helper()
		var enter, exit uint64
		var left int64
		// The readers park after their last reply is written.
		waitFlag(t, "the passes to end ("+when+")", func() bool {
			onLoop(s.Do, func() { enter, exit, left = a.enter.Load(), a.exit.Load(), a.left.Load() })
			return enter == exit
		})
		if enter == 0 || left != 0 || a.waiting.Load() {
			t.Fatalf("%s: passes begun %d, ended %d, connections waited for %d, waiting %v", when, enter, exit, left, a.waiting.Load())
		}
	}
	var wg sync.WaitGroup
	idle := make(chan struct{})
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Error(err)
				wg.Done()
				return
			}
			defer nc.Close()
			defer func() { wg.Done(); <-idle }() // idle until the check
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			r := bufio.NewReader(nc)
			for j := 0; j < 200; j++ {
				req := "INCR k" + strconv.Itoa(i) + "\r\n"
				if j%10 == 0 {
					req = strings.Repeat(req, 5)
				}
				// Sent in two pieces: a partial request first.
				nc.Write([]byte(req[:3]))
				nc.Write([]byte(req[3:]))
				for range strings.Count(req, "\r\n") {
					if _, err := r.ReadString('\n'); err != nil {
						t.Error(err)
						return
					}
				}
			}
			if i%2 == 0 {
				nc.Write([]byte("*2\r\n$4\r\nINCR")) // left partial
			}
		}(i)
	}
	wg.Wait()
	check("clients idle")
	close(idle)
	waitFlag(t, "the readers to stop", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.conns) == 0 })
	check("clients gone")
}

// TestAwaitEarlierTakesHandedOver: what a reader handed over after the
// loop took its requests, and before it looked at the readers, runs with
// them: the reader's pass has ended, so the loop does not wait, but it
// takes the queue again.
func TestAwaitEarlierTakesHandedOver(t *testing.T) {
	goroutinePath(t)
	s := RunT(t)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	serverConn(t, s, nc)
	waitFlag(t, "the epoll set", func() bool { return s.arrival.epfd.Load() != 0 }) // its reader registers
	var got []request
	onLoop(s.Do, func() {
		s.reqs <- request{kind: reqCall, fn: func() {}} // handed over meanwhile
		got = s.awaitEarlier(append(make([]request, 0, 4), request{kind: reqCall, fn: func() {}}))
	})
	if len(got) != 2 {
		t.Fatalf("took %d requests, want 2", len(got))
	}
}
