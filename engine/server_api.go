package engine

import (
	"log/slog"

	"github.com/lockkv/lockkv/store"
)

// What the command families outside the engine read and do through it:
// the server families (package admin: CONFIG, INFO, DEBUG, MEMORY, ROLE,
// SHUTDOWN, CLUSTER, SENTINEL, RAFT.NODE) and OBJECT (package commands).
// Every method runs on the command goroutine.

// Log is the engine's logger: Logger, or a discarding one when none is
// set.
func (e *Engine) Log() *slog.Logger { return e.logger() }

// ResetStats is CONFIG RESETSTAT: INFO's counters, error and command
// statistics start again (the dirty count stays).
func (e *Engine) ResetStats() {
	e.Stats = Stats{Dirty: e.Stats.Dirty}
	e.srv.errorStats = nil
	e.srv.cmdStats = nil
}

// ErrorStats are INFO errorstats' counters by error code (a copy).
func (e *Engine) ErrorStats() map[string]int64 {
	out := make(map[string]int64, len(e.srv.errorStats))
	for k, v := range e.srv.errorStats {
		out[k] = v
	}
	return out
}

// AppendLatencyStats appends INFO latencystats' lines to b.
func (e *Engine) AppendLatencyStats(b []byte, now int64) []byte { return infoLatencyStats(e, b, now) }

// HeldClients is INFO blocked_clients: the clients held by a blocking
// command, CLIENT PAUSE, WAIT or a reply promised for later (Redis counts
// BLOCKED_WAIT too).
func (e *Engine) HeldClients() int {
	n := 0
	for _, cl := range e.clients {
		if cl.held() {
			n++
		}
	}
	return n
}

// UsedMemoryNow is used_memory read afresh (INFO memory), not the sample
// the maxmemory check may reuse.
func (e *Engine) UsedMemoryNow() uint64 {
	e.mem.sampledAt = 0
	return e.usedMemory()
}

// SaveInfo is INFO persistence's view of SAVE and BGSAVE.
type SaveInfo struct {
	InProgress     bool
	LastSave       int64  // Unix seconds of the last successful save
	LastStatus     string // "ok" or "err"
	LastBgsaveSec  int64
	CurrentSec     int64 // -1 while none runs
	Saves          int64
	LoadedKeys     int64 // of the last RDB load
	ExpiredSkipped int64 // of the last RDB load
}

// Saves settles the dirty count against finished saves and reports them.
func (e *Engine) Saves() SaveInfo {
	e.settleSaves()
	s := &e.saves
	return SaveInfo{
		InProgress:     s.inProgress.Load(),
		LastSave:       s.lastSave.Load(),
		LastStatus:     s.status(),
		LastBgsaveSec:  s.lastBgsaveSec.Load(),
		CurrentSec:     s.currentSec(),
		Saves:          s.count.Load(),
		LoadedKeys:     s.loaded,
		ExpiredSkipped: s.expired,
	}
}

// LastSave is LASTSAVE: Unix seconds of the last successful save.
func (e *Engine) LastSave() int64 { return e.saves.lastSave.Load() }

// Shutdown runs the server's shutdown hook, reporting false when there is
// none (SHUTDOWN then fails).
func (e *Engine) Shutdown() bool {
	if e.srv.shutdown == nil {
		return false
	}
	e.srv.shutdown()
	return true
}

// KeyIdleSeconds is OBJECT IDLETIME's (and DEBUG OBJECT's) idle time of
// ent at now.
func (e *Engine) KeyIdleSeconds(ent *store.Entry, now int64) int64 {
	return idleSeconds(e.keyAccess(ent), now)
}

// Refcount is what OBJECT REFCOUNT reports: a shared integer's is INT_MAX.
func Refcount(v store.Value) int64 { return refcount(v) }

// NotLeaderError is the reply of a node that cannot run a command now:
// MOVED to the leader, or CLUSTERDOWN while no leader serves.
func (c *Ctx) NotLeaderError(spec *Spec, args [][]byte) string { return c.notLeaderError(spec, args) }

// MovedToLeader is MOVED to the leader, or CLUSTERDOWN while none other
// is known.
func (e *Engine) MovedToLeader() string { return e.movedToLeader() }

// ReplicasProgressed answers the WAITs and WAITAOFs a follower's progress
// report satisfied (RAFT.NODE ACK).
func (e *Engine) ReplicasProgressed() { e.waitRecheck() }

// KeyFreq is OBJECT FREQ's counter of ent at now (LFU policies), decayed
// as Redis's LFUDecrAndReturn.
func (e *Engine) KeyFreq(ent *store.Entry, now int64) int64 { return e.lfuDecr(e.keyAccess(ent), now) }
