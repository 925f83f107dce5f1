package replication

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// TestTransportDoesNotPipeline: the node's Raft transport sends every
// AppendEntries as a plain RPC. hashicorp/raft v1.7.3's pipeline can
// deadlock after a follower answers Success=false (pipelineSend parked on
// inprogressCh, decodeResponses on a doneCh nobody reads), leaving that
// follower without entries and Raft's Shutdown waiting forever; a
// transport that offers no pipeline makes Raft replicate without one.
func TestTransportDoesNotPipeline(t *testing.T) {
	adv := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	sec := &raftSecurity{}
	trans, err := newRaftTransport("127.0.0.1:0", adv, sec, authWith(nil, nil),
		newRefusalLog(slog.New(slog.NewTextHandler(io.Discard, nil))), hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer trans.Close()
	p, err := trans.AppendEntriesPipeline("peer", "127.0.0.1:1")
	if !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		if p != nil {
			p.Close()
		}
		t.Fatalf("AppendEntriesPipeline: %v, want ErrPipelineReplicationNotSupported", err)
	}
}
