package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// TestDeliverOrderWhenSocketFills: output delivered while the peer does
// not read goes out partly from the delivering goroutine (writeNow) and
// partly from the writer goroutine once the socket is full; the peer
// gets every byte once, in delivery order, and Deliver never waits for
// the peer.
func TestDeliverOrderWhenSocketFills(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer := testutil.DialSlowReader(t, ln.Addr().String()).NetConn()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.(*net.TCPConn).SetWriteBuffer(8192); err != nil {
		t.Fatal(err)
	}
	c := newConn(&Server{}, nc)
	if c.rw == nil && isLinux {
		t.Fatal("no raw writer for a TCP connection on Linux")
	}
	writerDone := make(chan struct{})
	go func() { c.writeLoop(); close(writerDone) }()
	defer func() { close(c.done); <-writerDone }()

	var want bytes.Buffer
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		for i := 0; i < 4000; i++ {
			b := []byte(fmt.Sprintf("%06d:%s\n", i, bytes.Repeat([]byte{byte('a' + i%26)}, i%300)))
			want.Write(b)
			c.Deliver(b)
		}
		c.Close()
	}()
	// Every delivery returns while nothing is read.
	if err := testutil.Poll(10*time.Second, func() error {
		select {
		case <-delivered:
			return nil
		default:
			return fmt.Errorf("Deliver waits for the peer (%d bytes pending)", c.Pending())
		}
	}); err != nil {
		t.Fatal(err)
	}
	if c.Pending() == 0 {
		t.Fatal("the socket took everything: the test did not fill it")
	}
	got, err := io.ReadAll(peer)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the peer got %d bytes, not the %d delivered in order", len(got), want.Len())
	}
	if p := c.Pending(); p != 0 {
		t.Fatalf("%d bytes still pending after all were written", p)
	}
}
