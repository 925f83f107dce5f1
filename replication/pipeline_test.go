package replication

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// TestTransportPipelines: over lockkv's stream layer (handshake included),
// the node's Raft transport pipelines AppendEntries: the leader sends
// raftMaxInFlight-1 of them without waiting for the follower's first
// answer (the next one waits for it), and the answers come back in order.
func TestTransportPipelines(t *testing.T) {
	newTrans := func() *raft.NetworkTransport {
		tr, err := newRaftTransport("127.0.0.1:0", nil, &raftSecurity{}, authWith(nil, nil),
			newRefusalLog(slog.New(slog.NewTextHandler(io.Discard, nil))), hclog.NewNullLogger())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		return tr
	}
	leader, follower := newTrans(), newTrans()

	p, err := leader.AppendEntriesPipeline("follower", follower.LocalAddr())
	if err != nil {
		t.Fatalf("AppendEntriesPipeline: %v", err)
	}
	defer p.Close()
	const total = 2 * raftMaxInFlight
	sent := make(chan error, total)
	go func() {
		for i := 0; i < total; i++ {
			req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax}, Term: 1, PrevLogEntry: uint64(i)}
			_, err := p.AppendEntries(req, new(raft.AppendEntriesResponse))
			sent <- err
			if err != nil {
				return
			}
		}
	}()

	// The follower holds its first answer until the leader has sent
	// what it may before that answer.
	answer := func(rpc raft.RPC) {
		req := rpc.Command.(*raft.AppendEntriesRequest)
		rpc.Respond(&raft.AppendEntriesResponse{Term: req.Term, LastLog: req.PrevLogEntry + 1, Success: true}, nil)
	}
	var first raft.RPC
	select {
	case first = <-follower.Consumer():
	case <-time.After(10 * time.Second):
		t.Fatal("the follower got no AppendEntries")
	}
	for i := 0; i < raftMaxInFlight-1; i++ {
		select {
		case err := <-sent:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the leader sent %d AppendEntries before the follower's first answer, want %d", i, raftMaxInFlight-1)
		}
	}
	answer(first)
	go func() {
		for i := 1; i < total; i++ {
			select {
			case rpc := <-follower.Consumer():
				answer(rpc)
			case <-time.After(10 * time.Second):
				return
			}
		}
	}()
	for i := 0; i < total; i++ {
		select {
		case f := <-p.Consumer():
			if err := f.Error(); err != nil {
				t.Fatalf("answer %d: %v", i, err)
			}
			if last := f.Response().LastLog; last != uint64(i)+1 {
				t.Fatalf("answer %d has LastLog %d, want %d (out of order)", i, last, i+1)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("answer %d never came", i)
		}
	}
}
