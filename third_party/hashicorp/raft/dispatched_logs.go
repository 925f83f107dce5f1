// Copyright (c) HashiCorp, Inc.
// SPDX-License-Identifier: MPL-2.0

package raft

import "sync"

// dispatchedLogs is the hand-off that lets the leader write its own log in
// parallel with replicating it (Ongaro's thesis, section 10.2.1): the leader
// loop sets it to the batch it is about to store (dispatchLogs), the
// replication goroutines read entries from it before they read the LogStore,
// and the leader loop clears it as soon as StoreLogs returns, whether the
// write succeeded (the LogStore then holds the entries) or failed (the
// leader then steps down, and the entries must not be served again).
//
// It is empty whenever the leader loop is not inside dispatchLogs: it never
// outlives the leadership (or the term) of the entries it holds, and it never
// coexists with a truncation or compaction of the same indexes, which happen
// on the main goroutine (followers, snapshot restores) or cover only indexes
// already applied (the snapshot goroutine's compaction).
type dispatchedLogs struct {
	mu   sync.RWMutex
	logs []*Log // contiguous indexes, in order
}

// set makes logs, a contiguous batch, readable until the next set or clear.
func (d *dispatchedLogs) set(logs []*Log) {
	d.mu.Lock()
	d.logs = logs
	d.mu.Unlock()
}

// clear drops the batch.
func (d *dispatchedLogs) clear() {
	d.set(nil)
}

// get copies the entry at index into out if the batch holds it.
func (d *dispatchedLogs) get(index uint64, out *Log) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if len(d.logs) == 0 {
		return false
	}
	first := d.logs[0].Index
	if index < first || index-first >= uint64(len(d.logs)) {
		return false
	}
	*out = *d.logs[index-first]
	return true
}
