// Package raftforge plays an attacker on a Raft port: it sends forged
// hashicorp/raft RPCs in Raft's own wire format (a raft.NetworkTransport
// encodes them, as a member's would) over whatever connection a Dialer
// opens: plain TCP, or lockkv's handshake with some credentials. Tests use
// it to show what lockkv's Raft port refuses, and, against an
// unauthenticated port, that the same RPCs do take effect.
package raftforge

import (
	"io"
	"net"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Dialer opens a connection to a Raft port.
type Dialer func(addr string, timeout time.Duration) (net.Conn, error)

// Plain dials TCP and speaks Raft at once, as hashicorp/raft's own
// TCPTransport does.
func Plain(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}

// Forger sends forged RPCs.
type Forger struct {
	trans *raft.NetworkTransport
}

// New returns a Forger whose connections come from dial.
func New(dial Dialer) (*Forger, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  stream{ln, dial},
		MaxPool: 1,
		Timeout: 5 * time.Second,
		Logger:  hclog.New(&hclog.LoggerOptions{Output: io.Discard}),
	})
	return &Forger{trans: trans}, nil
}

// Close closes the Forger's connections.
func (f *Forger) Close() { f.trans.Close() }

func header(id, addr string) raft.RPCHeader {
	return raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte(id), Addr: []byte(addr)}
}

// AppendEntry poses as leader leaderID (at leaderAddr) in term and sends
// the Raft port at target one command entry holding data, placed right
// after (prevIndex, prevTerm) and declared committed.
func (f *Forger) AppendEntry(target, leaderID, leaderAddr string, term, prevIndex, prevTerm uint64, data []byte) (*raft.AppendEntriesResponse, error) {
	req := &raft.AppendEntriesRequest{
		RPCHeader:    header(leaderID, leaderAddr),
		Term:         term,
		PrevLogEntry: prevIndex,
		PrevLogTerm:  prevTerm,
		Entries: []*raft.Log{{
			Index: prevIndex + 1, Term: term, Type: raft.LogCommand, Data: data, AppendedAt: time.Now(),
		}},
		LeaderCommitIndex: prevIndex + 1,
	}
	var resp raft.AppendEntriesResponse
	err := f.trans.AppendEntries(raft.ServerID(leaderID), raft.ServerAddress(target), req, &resp)
	return &resp, err
}

// RequestVote poses as candidateID (at candidateAddr) and asks the Raft
// port at target for its vote in term, claiming a log up to (lastIndex,
// lastTerm) and a leadership transfer (which passes the check that a
// node with a leader refuses votes).
func (f *Forger) RequestVote(target, candidateID, candidateAddr string, term, lastIndex, lastTerm uint64) (*raft.RequestVoteResponse, error) {
	req := &raft.RequestVoteRequest{
		RPCHeader:          header(candidateID, candidateAddr),
		Term:               term,
		LastLogIndex:       lastIndex,
		LastLogTerm:        lastTerm,
		LeadershipTransfer: true,
	}
	var resp raft.RequestVoteResponse
	err := f.trans.RequestVote(raft.ServerID(candidateID), raft.ServerAddress(target), req, &resp)
	return &resp, err
}

// stream is a raft.StreamLayer that dials through a Dialer; nothing
// connects to its listener.
type stream struct {
	net.Listener
	dial Dialer
}

func (s stream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.dial(string(addr), timeout)
}
