// Copyright (c) HashiCorp, Inc.
// SPDX-License-Identifier: MPL-2.0

package raft

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hookedLogStore runs a hook, on the writer's goroutine, before each write of
// a batch that holds a command; the hook's error fails the write.
type hookedLogStore struct {
	LogStore
	mu   sync.Mutex
	hook func(logs []*Log) error
}

func (s *hookedLogStore) setHook(hook func(logs []*Log) error) {
	s.mu.Lock()
	s.hook = hook
	s.mu.Unlock()
}

func (s *hookedLogStore) StoreLog(l *Log) error { return s.StoreLogs([]*Log{l}) }

func (s *hookedLogStore) StoreLogs(logs []*Log) error {
	s.mu.Lock()
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && len(logs) > 0 && logs[0].Type == LogCommand {
		if err := hook(logs); err != nil {
			return err
		}
	}
	return s.LogStore.StoreLogs(logs)
}

func makeHookedCluster(t *testing.T) (*cluster, []*hookedLogStore) {
	stores := make([]*hookedLogStore, 3)
	c := makeCluster(t, &MakeClusterOpts{
		Peers:     3,
		Bootstrap: true,
		Conf:      inmemConfig(t),
		wrapLogStore: func(i int, s LogStore) LogStore {
			stores[i] = &hookedLogStore{LogStore: s}
			return stores[i]
		},
	})
	return c, stores
}

// waitStored waits until store holds the entry at index with data.
func waitStored(store LogStore, index uint64, data []byte) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var l Log
		if err := store.GetLog(index, &l); err == nil && bytes.Equal(l.Data, data) {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// waitMatched waits until the commitment counts id's match of index.
func waitMatched(c *commitment, id ServerID, index uint64) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.Lock()
		m := c.matchIndexes[id]
		c.Unlock()
		if m >= index {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// The leader sends an entry to its followers while its own write of the entry
// is in progress, and counts itself in the commitment only once the write is
// done: with one follower cut off, the entry stays uncommitted while only the
// other follower holds it; with both followers, they commit it on their own.
func TestRaft_LeaderReplicatesDuringLogWrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		followers int // followers that can hear the leader
	}{
		{"one follower", 1},
		{"two followers", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, stores := makeHookedCluster(t)
			defer c.Close()
			leader := c.Leader()
			li := c.IndexOf(leader)
			var hearing []int
			for i := range c.rafts {
				if i != li {
					hearing = append(hearing, i)
				}
			}
			if tc.followers == 1 {
				c.Partition([]ServerAddress{c.trans[hearing[1]].LocalAddr()})
				hearing = hearing[:1]
			}

			data := []byte("during the leader's write")
			var checked atomic.Bool
			stores[li].setHook(func(logs []*Log) error {
				if !bytes.Equal(logs[0].Data, data) || checked.Swap(true) {
					return nil
				}
				index := logs[0].Index
				// The hook runs on the leader loop, which owns leaderState.
				cm := leader.leaderState.commitment
				for _, f := range hearing {
					if !waitStored(c.stores[f], index, data) {
						t.Errorf("follower %d did not store entry %d while the leader wrote it", f, index)
						return nil
					}
					if !waitMatched(cm, c.rafts[f].localID, index) {
						t.Errorf("the leader did not count follower %d's match of entry %d", f, index)
						return nil
					}
				}
				commit := cm.getCommitIndex()
				if tc.followers == 1 && commit >= index {
					t.Errorf("entry %d committed (commit index %d) before the leader's write was done, with one follower holding it", index, commit)
				}
				if tc.followers == 2 && commit < index {
					t.Errorf("entry %d not committed (commit index %d) with both followers holding it", index, commit)
				}
				return nil
			})

			if err := leader.Apply(data, 5*time.Second).Error(); err != nil {
				t.Fatalf("apply: %v", err)
			}
			if !checked.Load() {
				t.Fatalf("the leader's write of the entry was not seen")
			}
			var l Log
			if leader.dispatched.get(leader.getLastIndex(), &l) {
				t.Fatalf("the leader still holds a written batch in memory: %+v", l)
			}
		})
	}
}

// A leader whose write of a batch fails steps down, and its last log is the
// LogStore's again (RequestVote answers from it), while the followers that
// got the batch during the write keep it, as after a leader's crash.
func TestRaft_LeaderLogWriteFailure(t *testing.T) {
	c, stores := makeHookedCluster(t)
	defer c.Close()
	leader := c.Leader()
	li := c.IndexOf(leader)
	term := leader.getCurrentTerm()

	data := []byte("not written by the leader")
	errDisk := errors.New("disk failed")
	var failed atomic.Bool
	var index uint64
	stores[li].setHook(func(logs []*Log) error {
		if !bytes.Equal(logs[0].Data, data) || failed.Swap(true) {
			return nil
		}
		index = logs[0].Index
		for i := range c.rafts {
			if i != li && !waitStored(c.stores[i], index, data) {
				t.Errorf("follower %d did not store entry %d while the leader wrote it", i, index)
			}
		}
		// Keep the failed leader from hearing a new one until checked.
		c.Partition([]ServerAddress{c.trans[li].LocalAddr()})
		return errDisk
	})

	if err := leader.Apply(data, 5*time.Second).Error(); !errors.Is(err, errDisk) {
		t.Fatalf("apply: got %v, want %v", err, errDisk)
	}
	storeLast, err := c.stores[li].LastIndex()
	if err != nil {
		t.Fatalf("last index: %v", err)
	}
	if storeLast != index-1 {
		t.Fatalf("the leader's store ends at %d, want %d", storeLast, index-1)
	}
	var last Log
	if err := c.stores[li].GetLog(storeLast, &last); err != nil {
		t.Fatalf("get log %d: %v", storeLast, err)
	}
	// The step-down ends with the last log's restoration.
	deadline := time.Now().Add(5 * time.Second)
	for {
		idx, lastTerm := leader.getLastLog()
		if leader.getState() != Leader && idx == last.Index && lastTerm == last.Term {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %v, last log %d (term %d); the store's last entry is %d (term %d)",
				leader.getState(), idx, lastTerm, last.Index, last.Term)
		}
		time.Sleep(time.Millisecond)
	}
	var l Log
	if leader.dispatched.get(index, &l) {
		t.Fatalf("the failed batch is still served from memory")
	}
	for i := range c.rafts {
		if i != li && !waitStored(c.stores[i], index, data) {
			t.Fatalf("follower %d lost entry %d", i, index)
		}
	}

	// A follower that holds the entry leads next, and commits it.
	c.FullyConnect()
	newLeader := c.Leader()
	if newLeader == leader {
		t.Fatalf("the leader that failed its write was re-elected without the entry")
	}
	if newLeader.getCurrentTerm() <= term {
		t.Fatalf("new leader's term %d, want above %d", newLeader.getCurrentTerm(), term)
	}
	if err := newLeader.Apply([]byte("after"), 5*time.Second).Error(); err != nil {
		t.Fatalf("apply on the new leader: %v", err)
	}
	c.WaitForReplication(2)
	c.EnsureSame(t)
}
