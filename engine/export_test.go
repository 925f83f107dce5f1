package engine

import (
	"log/slog"

	"github.com/lockkv/lockkv/scriptcache"
)

// This file gives the external tests (package engine_test, which build
// engines with enginetest) read and write access to the few internals
// they check. Nothing here is part of the engine's API.

// Internal parsers, constants and tables the tests check directly.
var (
	ParseTimeoutMs = parseTimeoutMs
	CRC16          = crc16
	SortForScript  = sortForScript
	CopyArgs       = copyArgs
)

const (
	NeverDeadline  = neverDeadline
	PanicLogArgLen = panicLogArgLen
)

// ParkKind is a client's parked state.
type ParkKind = parkKind

const (
	ParkNone      = parkNone
	ParkBlocked   = parkBlocked
	ParkPaused    = parkPaused
	ParkWait      = parkWait
	ParkReply     = parkReply
	ParkProposed  = parkProposed
	ParkReadRound = parkReadRound
	ParkKinds     = ParkKind(len(parkNames)) // one past the last kind
)

// SeedSessionsForTest are the fuzz seed sessions (fuzz_seeds_test.go).
func SeedSessionsForTest() []string { return fuzzSeeds }

// TableForTest is the command table by name.
func TableForTest() map[string]*Spec { return table }

// ReplicatedForTest reports whether s's replication class proposes
// (a write, or EXEC).
func (s *Spec) ReplicatedForTest() bool { return s.repl == replWrite || s.repl == replExec }

// SetLoggerForTest replaces the engine's logger.
func (e *Engine) SetLoggerForTest(l *slog.Logger) { e.log = l }

// EnableReplicationForTest makes e a replicated node proposing to r.
func (e *Engine) EnableReplicationForTest(r Replicator, origin uint64) {
	e.enableReplication(r, origin)
}

// UsedMemoryForTest is the used memory, sampled again when the last
// sample is old; MemSampledAtForTest is when it was sampled.
func (e *Engine) UsedMemoryForTest() uint64  { return e.usedMemory() }
func (e *Engine) MemSampledAtForTest() int64 { return e.mem.sampledAt }

// WatchedKeysForTest is the number of keys some client WATCHes;
// WatchersForTest the number of clients watching key in db.
func (e *Engine) WatchedKeysForTest() int { return len(e.watches.keys) }
func (e *Engine) WatchersForTest(db int, key string) int {
	return len(e.watches.keys[watchKey{db, key}])
}

// PatternIndexForTest is the size of the pattern subscription index.
func (e *Engine) PatternIndexForTest() int { return len(e.pubsub.patOrder.idx) }

// SetCommandStatForTest sets a command's calls and time in commandstats.
func (e *Engine) SetCommandStatForTest(s *Spec, calls, ns int64) {
	st := e.cmdStat(s)
	st.calls, st.ns = calls, ns
}

// CountCallForTest counts a call of s that ran for ns nanoseconds.
func (e *Engine) CountCallForTest(s *Spec, ns int64) {
	e.callStart()
	e.countCall(s, true, ns)
}

// UnpauseForTest ends CLIENT PAUSE and runs the clients it held.
func (e *Engine) UnpauseForTest() {
	e.srv.pause = pauseOff
	e.resumePaused()
}

// ResumeUnblockedForTest runs the clients a write unblocked.
func (e *Engine) ResumeUnblockedForTest() { e.resumeUnblocked() }

// SlowlogForTest is the slow log's entries, newest first: ids and args.
func (e *Engine) SlowlogForTest() (ids []int64, args [][]string) {
	for _, en := range e.slow.entries {
		ids, args = append(ids, en.id), append(args, en.args)
	}
	return ids, args
}

// CronRingForTest is the number of clients in the cron's ring.
func (e *Engine) CronRingForTest() int { return len(e.srv.cronRing) }

// ScriptCacheForTest is the script cache, nil before any script ran.
func (e *Engine) ScriptCacheForTest() *scriptcache.Cache {
	if e.scripting == nil {
		return nil
	}
	return e.scripting.cache
}

// ApplyClientForTest is the client replicated entries are applied as.
func (e *Engine) ApplyClientForTest() *Client { return e.repl.apply }

// ReplInFlightForTest is the number of this node's ops proposed and not
// yet applied, and the clients waiting for theirs.
func (e *Engine) ReplInFlightForTest() (inflight, pending int) {
	return e.repl.inflight, len(e.repl.pending)
}

// ParkForTest and UnparkForTest move cl into and out of kind k.
func (e *Engine) ParkForTest(cl *Client, k ParkKind)   { e.park(cl, k) }
func (e *Engine) UnparkForTest(cl *Client, k ParkKind) { e.unpark(cl, k) }

// ClientTimedOutForTest reports whether timeout closes cl at now.
func (e *Engine) ClientTimedOutForTest(cl *Client, now int64) bool { return e.clientTimedOut(cl, now) }

// HeldForTest reports whether a client parked as k counts as blocked.
func (k parkKind) HeldForTest() bool { return k.held() }

// ProtectedModeDeniesForTest reports whether protected mode turns away a
// client from addr.
func (e *Engine) ProtectedModeDeniesForTest(addr string) bool { return e.protectedModeDenies(addr) }

// ParkForTest is cl's parked state.
func (c *Client) ParkForTest() ParkKind { return c.park }

// QueuedForTest is the number of commands queued behind cl's current one.
func (c *Client) QueuedForTest() int { return len(c.queue) }

// RetryingForTest reports whether cl's blocked command is being proposed
// again; ReadNeedForTest is the confirmation round its reads need.
func (c *Client) RetryingForTest() bool   { return c.repl.retrying }
func (c *Client) ReadNeedForTest() uint64 { return c.repl.readNeed }

// EnterMultiForTest marks the client inside MULTI, as MULTI does.
func (c *Client) EnterMultiForTest() { c.multi.active = true }

// PrepareScriptForTest sets the script state up as EVAL does before it
// runs a script; the function returned undoes it.
func (c *Ctx) PrepareScriptForTest() (finish func()) {
	s := c.E.scripts()
	s.prepare(c, s.lua, "x", nil, nil, false, 0)
	return s.finish
}

// PrefetchQueued is how many keys wait in the prefetch queue.
func (e *Engine) PrefetchQueued() int { return len(e.prefetchKeys) }
