// Copyright (c) HashiCorp, Inc.
// SPDX-License-Identifier: MPL-2.0

package raft

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// failingLogStore fails the next StoreLogs calls while fail > 0, so that
// its node answers AppendEntries with Success=false.
type failingLogStore struct {
	LogStore
	fail   atomic.Int32
	failed atomic.Int32
}

func (s *failingLogStore) StoreLogs(logs []*Log) error {
	if s.fail.Load() > 0 && s.fail.Add(-1) >= 0 {
		s.failed.Add(1)
		return errors.New("failing on purpose")
	}
	return s.LogStore.StoreLogs(logs)
}

func (s *failingLogStore) StoreLog(l *Log) error { return s.StoreLogs([]*Log{l}) }

// TestRaft_PipelineSurvivesRejectedAppend: a follower that answers a
// pipelined AppendEntries with Success=false keeps being replicated to.
// In v1.7.3 the pipeline's decoder returned on that answer, nobody read
// the transport's finished futures any more, and a send the replicator
// made meanwhile parked on the in-flight queue for good: the follower got
// no further entries and Shutdown waited forever. It runs over real TCP
// transports, whose pipeline (MaxRPCsInFlight 2) has unbuffered queues.
func TestRaft_PipelineSurvivesRejectedAppend(t *testing.T) {
	const n = 3
	stores := make([]*failingLogStore, n)
	trans := make([]*NetworkTransport, n)
	confs := make([]*Config, n)
	var configuration Configuration
	for i := 0; i < n; i++ {
		tr, err := NewTCPTransportWithLogger("127.0.0.1:0", nil, 2, time.Second, hclog.NewNullLogger())
		if err != nil {
			t.Fatal(err)
		}
		trans[i] = tr
		stores[i] = &failingLogStore{LogStore: NewInmemStore()}
		conf := inmemConfig(t)
		conf.LocalID = ServerID(fmt.Sprintf("server-%d", i))
		confs[i] = conf
		configuration.Servers = append(configuration.Servers, Server{Suffrage: Voter, ID: conf.LocalID, Address: tr.LocalAddr()})
	}
	rafts := make([]*Raft, n)
	for i := 0; i < n; i++ {
		stable := NewInmemStore()
		snaps := NewInmemSnapshotStore()
		if err := BootstrapCluster(confs[i], stores[i], stable, snaps, trans[i], configuration); err != nil {
			t.Fatal(err)
		}
		r, err := NewRaft(confs[i], &MockFSM{}, stores[i], stable, snaps, trans[i])
		if err != nil {
			t.Fatal(err)
		}
		rafts[i] = r
	}
	shutdown := func() {
		done := make(chan struct{})
		go func() {
			for i := 0; i < n; i++ {
				rafts[i].Shutdown().Error()
				trans[i].Close()
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Shutdown did not return")
		}
	}
	defer func() {
		if rafts != nil {
			shutdown()
		}
	}()

	var leader *Raft
	deadline := time.Now().Add(10 * time.Second)
	for leader == nil {
		if time.Now().After(deadline) {
			t.Fatal("no leader")
		}
		for _, r := range rafts {
			if r.State() == Leader {
				leader = r
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	victim := -1
	for i, r := range rafts {
		if r != leader {
			victim = i
			break
		}
	}

	// Keep the replicators busy so that a second AppendEntries is in
	// flight when the victim rejects one.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				leader.Apply([]byte("x"), time.Second).Error()
			}
		}()
	}
	// Each round the victim rejects one AppendEntries, and must then
	// store entries again.
	stalled := func(round int, what string) {
		close(stop)
		for i, r := range rafts {
			t.Logf("node %d: %v, last index %d", i, r.State(), r.LastIndex())
		}
		t.Fatalf("round %d: the victim (node %d) %s", round, victim, what)
	}
	for round := 1; round <= 20; round++ {
		stores[victim].fail.Store(1)
		deadline := time.Now().Add(5 * time.Second)
		for stores[victim].failed.Load() < int32(round) {
			if time.Now().After(deadline) {
				stalled(round, "got no entries to reject for 5s")
			}
			time.Sleep(time.Millisecond)
		}
		at := rafts[victim].LastIndex()
		for rafts[victim].LastIndex() <= at {
			if time.Now().After(deadline) {
				stalled(round, "stored no entry for 5s after it rejected one")
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()

	if err := leader.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	want := leader.LastIndex()
	deadline = time.Now().Add(5 * time.Second)
	for rafts[victim].LastIndex() < want {
		if time.Now().After(deadline) {
			t.Fatalf("the victim's last index is %d, the leader's %d: replication to it stalled", rafts[victim].LastIndex(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	shutdown()
	rafts = nil
}
