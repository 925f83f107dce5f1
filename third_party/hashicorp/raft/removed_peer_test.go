// Copyright (c) HashiCorp, Inc.
// SPDX-License-Identifier: MPL-2.0

package raft

import (
	"sync"
	"testing"
	"time"
)

// holdingTransport offers no pipeline (every AppendEntries is a plain
// RPC) and can hold the next AppendEntries that carries a command to one
// peer until released.
type holdingTransport struct {
	Transport
	mu      sync.Mutex
	target  ServerID
	held    chan struct{} // closed once the RPC is held
	release chan struct{} // the held RPC goes on once this is closed
}

func (t *holdingTransport) AppendEntriesPipeline(ServerID, ServerAddress) (AppendPipeline, error) {
	return nil, ErrPipelineReplicationNotSupported
}

func (t *holdingTransport) hold(target ServerID) (held, release chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.target, t.held, t.release = target, make(chan struct{}), make(chan struct{})
	return t.held, t.release
}

func (t *holdingTransport) AppendEntries(id ServerID, target ServerAddress, args *AppendEntriesRequest, resp *AppendEntriesResponse) error {
	t.mu.Lock()
	var release chan struct{}
	if id == t.target && len(args.Entries) > 0 && args.Entries[0].Type == LogCommand {
		close(t.held)
		release = t.release
		t.target = ""
	}
	t.mu.Unlock()
	if release != nil {
		<-release
	}
	return t.Transport.AppendEntries(id, target, args, resp)
}

// TestRaft_RemovedPeerGetsRemovalDuringRPC: a peer removed while an
// AppendEntries to it is in flight still gets, best effort, the entry that
// removes it. v1.7.3's replicateTo took the stop (and the index it
// carries) on its way out of that RPC and dropped it, so the peer never
// learnt of its removal.
func TestRaft_RemovedPeerGetsRemovalDuringRPC(t *testing.T) {
	trans := make([]*holdingTransport, 3)
	conf := inmemConfig(t)
	c := makeCluster(t, &MakeClusterOpts{
		Peers:     3,
		Bootstrap: true,
		Conf:      conf,
		wrapTransport: func(i int, tr Transport) Transport {
			trans[i] = &holdingTransport{Transport: tr}
			return trans[i]
		},
	})
	defer c.Close()
	leader := c.Leader()
	var lt *holdingTransport
	for i, r := range c.rafts {
		if r == leader {
			lt = trans[i]
		}
	}
	removed := c.Followers()[0]
	held, release := lt.hold(removed.localID)

	if err := leader.Apply([]byte("x"), time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(5 * time.Second):
		t.Fatal("no AppendEntries with the command to the follower")
	}
	// The stop reaches the follower's replicator while the RPC is held.
	f := leader.RemoveServer(removed.localID, 0, time.Second)
	if err := f.Error(); err != nil {
		t.Fatal(err)
	}
	close(release)

	deadline := time.Now().Add(5 * time.Second)
	for {
		fut := removed.GetConfiguration()
		if err := fut.Error(); err != nil {
			t.Fatal(err)
		}
		in := false
		for _, s := range fut.Configuration().Servers {
			in = in || s.ID == removed.localID
		}
		if !in {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the removed follower's latest configuration still holds it: %+v (the leader's removal is index %d, the follower's last index %d)",
				fut.Configuration().Servers, f.Index(), removed.LastIndex())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
