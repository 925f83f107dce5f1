package replication

import (
	"io"
	"log/slog"
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

//
// It also says when a peer stops answering and when it answers again,
// once each ("peer unreachable" at WARN, "peer reachable" at INFO),
// instead of Raft's line per failed heartbeat, append or vote (kept at
// DEBUG, raftlog.go). A peer is unreachable once every RPC this node sent
// it has failed for a window (two election timeouts, at least 1 s, as
// membership's "active"): a single dropped connection (a restarted
// peer's stale pooled connections) says nothing. Only nodes that send
// RPCs know: the leader (heartbeats, every HeartbeatTimeout/10) and
// candidates (votes).

// peerProgress is what the leader last heard from one follower.
type peerProgress struct {
	contact time.Time // when it last answered an RPC of this node
	lastLog uint64    // its last log index as it reported it

	// failingSince is when the RPCs to it started failing (zero while
	// they succeed); down is set once it was logged unreachable.
	failingSince time.Time
	down         bool
}

// progressTransport wraps the node's transport.
type progressTransport struct {
	raft.Transport
	log    *slog.Logger
	window func() time.Duration
	mu     sync.Mutex
	peers  map[raft.ServerID]peerProgress
}

// progressPreVote is progressTransport over a transport that supports
// pre-vote: hashicorp/raft looks for raft.WithPreVote on the transport it
// is given, and a wrapper without it would turn pre-vote off.
type progressPreVote struct{ *progressTransport }

func (t progressPreVote) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	err := t.Transport.(raft.WithPreVote).RequestPreVote(id, target, args, resp)
	t.answered(id, target, err)
	return err
}

// trackProgress wraps trans; the second result is what Raft is given.
// log hears peers becoming unreachable and reachable; window is how long
// RPCs must fail first.
func trackProgress(trans raft.Transport, log *slog.Logger, window func() time.Duration) (*progressTransport, raft.Transport) {
	t := &progressTransport{Transport: trans, log: log, window: window, peers: map[raft.ServerID]peerProgress{}}
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

// answered records whether peer id answered an RPC (err == nil), and
// logs it becoming unreachable or reachable again.
func (t *progressTransport) answered(id raft.ServerID, addr raft.ServerAddress, err error) {
	now := time.Now()
	t.mu.Lock()
	p := t.peers[id]
	var logDown, logUp bool
	var downFor time.Duration
	switch {
	case err == nil:
		if p.down {
			logUp, downFor = true, now.Sub(p.failingSince)
		}
		p.failingSince, p.down = time.Time{}, false
	case p.failingSince.IsZero():
		p.failingSince = now
	case !p.down && now.Sub(p.failingSince) >= t.window():
		p.down, logDown, downFor = true, true, now.Sub(p.failingSince)
	}
	t.peers[id] = p
	t.mu.Unlock()
	switch {
	case logDown:
		t.log.Warn("peer unreachable", "peer", string(id), "addr", string(addr), "failing_for", downFor.Round(time.Millisecond).String(), "err", err)
	case logUp:
		t.log.Info("peer reachable", "peer", string(id), "addr", string(addr), "unreachable_for", downFor.Round(time.Millisecond).String())
	}
}

// AppendEntries records the answer of a follower (raft.Transport).
func (t *progressTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	err := t.Transport.AppendEntries(id, target, args, resp)
	t.answered(id, target, err)
	if err == nil {
		t.heard(id, resp.LastLog, true)
	}
	return err
}

// InstallSnapshot records a follower that took a snapshot (raft.Transport).
func (t *progressTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	err := t.Transport.InstallSnapshot(id, target, args, resp, data)
	t.answered(id, target, err)
	if err == nil {
		t.heard(id, args.LastLogIndex, resp.Success)
	}
	return err
}

// RequestVote records whether the peer answered (raft.Transport).
func (t *progressTransport) RequestVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	err := t.Transport.RequestVote(id, target, args, resp)
	t.answered(id, target, err)
	return err
}

// TimeoutNow records whether the peer answered (raft.Transport).
func (t *progressTransport) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	err := t.Transport.TimeoutNow(id, target, args, resp)
	t.answered(id, target, err)
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
