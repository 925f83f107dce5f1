package replication

import (
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// What a leader knows of its followers from Raft itself. hashicorp/raft
// keeps each follower's match index and last contact to itself, so the
// node's transport is wrapped: every AppendEntries answered (the
// heartbeats, sent every HeartbeatTimeout/10 to each follower whatever
// else happens, and the non-pipelined replication RPCs) records when the
// follower answered and the last log index it reported (the response's
// LastLog); a successful InstallSnapshot records the snapshot's index.
// Membership changes read it (membership.go): whether a voter answers
// (the quorum checks) and how far a new node has caught up (promotion).
// It needs nothing from the client ports, unlike RAFT.NODE ACK.

// peerProgress is what the leader last heard from one follower.
type peerProgress struct {
	contact time.Time // when it last answered an RPC of this node
	lastLog uint64    // its last log index as it reported it
}

// progressTransport wraps the node's transport.
type progressTransport struct {
	raft.Transport
	mu    sync.Mutex
	peers map[raft.ServerID]peerProgress
}

// progressPreVote is progressTransport over a transport that supports
// pre-vote: hashicorp/raft looks for raft.WithPreVote on the transport it
// is given, and a wrapper without it would turn pre-vote off.
type progressPreVote struct{ *progressTransport }

func (t progressPreVote) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.Transport.(raft.WithPreVote).RequestPreVote(id, target, args, resp)
}

// trackProgress wraps trans; the second result is what Raft is given.
func trackProgress(trans raft.Transport) (*progressTransport, raft.Transport) {
	t := &progressTransport{Transport: trans, peers: map[raft.ServerID]peerProgress{}}
	if _, ok := trans.(raft.WithPreVote); ok {
		return t, progressPreVote{t}
	}
	return t, t
}

func (t *progressTransport) heard(id raft.ServerID, lastLog uint64, setLog bool) {
	t.mu.Lock()
	p := t.peers[id]
	p.contact = time.Now()
	if setLog {
		p.lastLog = lastLog
	}
	t.peers[id] = p
	t.mu.Unlock()
}

// AppendEntries records the answer of a follower (raft.Transport).
func (t *progressTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	err := t.Transport.AppendEntries(id, target, args, resp)
	if err == nil {
		t.heard(id, resp.LastLog, true)
	}
	return err
}

// InstallSnapshot records a follower that took a snapshot (raft.Transport).
func (t *progressTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	err := t.Transport.InstallSnapshot(id, target, args, resp, data)
	if err == nil {
		t.heard(id, args.LastLogIndex, resp.Success)
	}
	return err
}

// Close closes the wrapped transport (raft.WithClose).
func (t *progressTransport) Close() error {
	if c, ok := t.Transport.(raft.WithClose); ok {
		return c.Close()
	}
	return nil
}

// forget drops what was heard from follower id.
func (t *progressTransport) forget(id string) {
	t.mu.Lock()
	delete(t.peers, raft.ServerID(id))
	t.mu.Unlock()
}

// progress is what was last heard from follower id (the zero value if
// nothing).
func (t *progressTransport) progress(id string) peerProgress {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.peers[raft.ServerID(id)]
}
