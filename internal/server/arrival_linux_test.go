package server

import (
	"net"
	"testing"
	"time"
)

// TestArrivalStamps: requests sent one after the other on two connections
// are stamped in that order, whichever reader reads first.
func TestArrivalStamps(t *testing.T) {
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
	a, b := newArrivalReader(servers[0]), newArrivalReader(servers[1])
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
