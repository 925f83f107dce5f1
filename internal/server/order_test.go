package server

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
)

// serverConn returns the server's side of the client connection nc.
func serverConn(t *testing.T, s *Server, nc net.Conn) *conn {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var found *conn
		s.mu.Lock()
		for c := range s.conns {
			if c.nc.RemoteAddr().String() == nc.LocalAddr().String() {
				found = c
			}
		}
		s.mu.Unlock()
		if found != nil {
			<-found.ready // the loop has made its client
			return found
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no server side for the connection")
	return nil
}

// TestLoopRunsByArrival: batches the loop takes together run in the order
// their bytes arrived, not the order their readers handed them over (the
// netpoller wakes readers last-ready first). A SUBSCRIBE that arrived
// before a PUBLISH on another connection gets the message, however the
// two reached the loop.
func TestLoopRunsByArrival(t *testing.T) {
	goroutinePath(t)
	s := RunT(t)
	dial := func() (net.Conn, *bufio.Reader) {
		nc, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		return nc, bufio.NewReader(nc)
	}
	subNC, subR := dial()
	pubNC, pubR := dial()
	sub, pub := serverConn(t, s, subNC), serverConn(t, s, pubNC)
	batch := func(c *conn, arrived int64, args ...string) request {
		cmd := make([][]byte, len(args))
		for i, a := range args {
			cmd[i] = []byte(a)
		}
		return request{c: c, kind: reqBatch, b: &batch{cmds: [][][]byte{cmd}, ack: func() {}, arrived: arrived}}
	}
	for round := 0; round < 20; round++ {
		// Hold the loop, hand over the PUBLISH first and the SUBSCRIBE
		// that arrived before it second, then let the loop go.
		held, release := make(chan struct{}), make(chan struct{})
		go s.Do(func(*engine.Engine) { close(held); <-release })
		<-held
		now := time.Now().UnixNano()
		s.submit(batch(pub, now, "PUBLISH", "ch", "x"))
		s.submit(batch(sub, now-1000, "SUBSCRIBE", "ch"))
		close(release)
		expectSubscribedFirst(t, round, pubR, subR, subNC, "")
	}
}

// expectSubscribedFirst reads what a round of the order tests sends back:
// PUBLISH answering 1 (the SUBSCRIBE that arrived before it ran first),
// then on the subscriber's connection before (replies to what it sent
// ahead of SUBSCRIBE), the subscription and the message; it unsubscribes
// for the next round.
func expectSubscribedFirst(t *testing.T, round int, pubR, subR *bufio.Reader, subNC net.Conn, before string) {
	t.Helper()
	if l, err := pubR.ReadString('\n'); err != nil || l != ":1\r\n" {
		t.Fatalf("round %d: PUBLISH answered %q %v: it ran before the SUBSCRIBE that arrived first", round, l, err)
	}
	want := before + "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(subR, got); err != nil || string(got) != want {
		t.Fatalf("round %d: subscriber got %q %v", round, got, err)
	}
	subNC.Write([]byte("UNSUBSCRIBE ch\r\n"))
	want = "*3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n"
	got = make([]byte, len(want))
	if _, err := io.ReadFull(subR, got); err != nil || string(got) != want {
		t.Fatalf("UNSUBSCRIBE: %q %v", got, err)
	}
}

// goroutinePath makes the servers a test starts serve plain TCP with the
// connection goroutines and Server.loop (LOCKKV_AELOOP=off): the tests of
// that path's ordering (awaitEarlier) and readers, which TLS connections
// and other systems use.
func goroutinePath(t *testing.T) {
	t.Setenv("LOCKKV_AELOOP", "off")
}
