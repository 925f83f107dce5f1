package replication

import (
	"errors"
	"testing"
	"time"
)

// heldFuture is a raft.Future answered only when release is closed, as
// hashicorp/raft never answers one still queued when it shuts down.
type heldFuture struct {
	release chan struct{}
	err     error
}

func (f heldFuture) Error() error {
	<-f.release
	return f.err
}

// TestAwaitEndsWithTheNode: the node's goroutines wait for Raft's
// futures (the new leader's barrier, a leadership check, the watchdog's
// transfer) through await, which must end when the node stops: a
// leadership check queued as Raft shut down once held Shutdown (and the
// test stopping the node) forever.
func TestAwaitEndsWithTheNode(t *testing.T) {
	n := &Node{stop: make(chan struct{})}
	want := errors.New("answered")
	answered := heldFuture{release: make(chan struct{}), err: want}
	close(answered.release)
	if err := n.await(answered); err != want {
		t.Fatalf("await of an answered future: %v, want %v", err, want)
	}
	held := heldFuture{release: make(chan struct{})}
	defer close(held.release)
	out := make(chan error, 1)
	go func() { out <- n.await(held) }()
	close(n.stop)
	select {
	case err := <-out:
		if !errors.Is(err, errNodeStopped) {
			t.Fatalf("await after the node stopped: %v, want errNodeStopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("await still waits, after the node stopped, for a future Raft never answers")
	}
}
