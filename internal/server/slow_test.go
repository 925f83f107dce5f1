package server

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
)

// TestSlowRequest: a pipeline held up by the command goroutine is
// reported with its commands, its client and the time it waited, and
// its phases add up to the time it took; on the connection goroutines'
// path and on the event loop's.
func TestSlowRequest(t *testing.T) {
	for _, ae := range aeModes {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			testSlowRequest(t)
		})
	}
}

func testSlowRequest(t *testing.T) {
	reports := make(chan SlowRequest, 16)
	s := runWith(t, Config{
		SlowRequestThreshold: 20 * time.Millisecond,
		OnSlowRequest:        func(r SlowRequest) { reports <- r },
	})
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	req := []byte("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n")
	const want = "+PONG\r\n$1\r\nx\r\n"
	roundTrip := func() {
		t.Helper()
		if _, err := nc.Write(req); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(want))
		if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != want {
			t.Fatalf("reply %q, %v", buf, err)
		}
	}
	roundTrip() // connected and served

	const hold = 60 * time.Millisecond
	started := make(chan struct{})
	go s.Do(func(*engine.Engine) {
		close(started)
		time.Sleep(hold)
	})
	<-started
	roundTrip() // sent while the command goroutine is held
	var r SlowRequest
	select {
	case r = <-reports:
	case <-time.After(10 * time.Second):
		t.Fatal("the held pipeline was not reported")
	}
	if r.Commands != 2 || r.Client != nc.LocalAddr().String() {
		t.Errorf("reported %d commands of %s, want 2 of %s", r.Commands, r.Client, nc.LocalAddr())
	}
	// It arrived after the hold began, so it waited for the rest of it
	// before the command goroutine took it up.
	if waited := r.Read + r.Queued; waited < hold/2 || r.Took < waited {
		t.Errorf("read %v + queued %v, took %v: want at least %v waiting", r.Read, r.Queued, r.Took, hold/2)
	}
	if sum := r.Read + r.Queued + r.Run + r.Reply; sum != r.Took {
		t.Errorf("phases %v+%v+%v+%v = %v, took %v", r.Read, r.Queued, r.Run, r.Reply, sum, r.Took)
	}

	// A client that blocks waits on purpose: not reported.
	if _, err := nc.Write([]byte("*3\r\n$5\r\nBLPOP\r\n$6\r\nnolist\r\n$3\r\n0.1\r\n")); err != nil {
		t.Fatal(err)
	}
	nilReply := make([]byte, len("*-1\r\n"))
	if _, err := io.ReadFull(nc, nilReply); err != nil || string(nilReply) != "*-1\r\n" {
		t.Fatalf("BLPOP: %q %v", nilReply, err)
	}
	roundTrip() // a report of the BLPOP would be in before this reply
	select {
	case r := <-reports:
		t.Errorf("a blocked pipeline was reported: %+v", r)
	default:
	}
}

// TestSlowRequestOff: without a threshold nothing is timed, however long
// a pipeline waits.
func TestSlowRequestOff(t *testing.T) {
	for _, ae := range aeModes {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			testSlowRequestOff(t)
		})
	}
}

func testSlowRequestOff(t *testing.T) {
	reported := make(chan SlowRequest, 1)
	s := runWith(t, Config{OnSlowRequest: func(r SlowRequest) { reported <- r }})
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	started := make(chan struct{})
	go s.Do(func(*engine.Engine) {
		close(started)
		time.Sleep(30 * time.Millisecond)
	})
	<-started
	if _, err := nc.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(nc, buf); err != nil {
		t.Fatal(err)
	}
	// The reader reports a pipeline before it reads the next one: once
	// this one is answered, a report of the first would be in.
	if _, err := nc.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(nc, buf); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-reported:
		t.Fatalf("reported %+v with no threshold", r)
	default:
	}
}
