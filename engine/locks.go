package engine

import (
	"strings"

	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// LOCKKV.LOCKS: the locks in the keyspace, in the layouts lock clients
// write, listed a SCAN step at a time (lockkv's own command; Redis has
// none). A key is a lock when its layout says so:
//
//   - reentrant (Redisson's RLock, the fenced lock): a hash whose every
//     field is "<client id>:<thread id>" with an integer hold count;
//   - fair (Redisson's RFairLock): such a hash, or none while the lock is
//     free, with waiters in the list redisson_lock_queue:{name} and their
//     deadlines (Unix ms) in the zset redisson_lock_timeout:{name};
//   - readwrite (RReadWriteLock): a hash with a "mode" field ("read" or
//     "write") and its holders' counts;
//   - semaphore (RPermitExpirableSemaphore): the permits' deadlines in the
//     zset redisson__timeout__set:{name}, the available count in the
//     string name (a plain RSemaphore is a bare integer, which nothing
//     tells from a counter: it is not listed);
//   - string (SET key token NX PX, as redsync, redislock and Redlock
//     write): a string with a time to live; its value is the holder's
//     token.
//
// A hash with more than lockMaxFields fields is never taken for a lock,
// which bounds the work of classifying one key.

// LockType is a lock's layout.
type LockType string

// The layouts LOCKKV.LOCKS recognises.
const (
	LockReentrant LockType = "reentrant"
	LockFair      LockType = "fair"
	LockReadWrite LockType = "readwrite"
	LockSemaphore LockType = "semaphore"
	LockString    LockType = "string"
)

// LockTypes are the layouts, in the order metrics list them.
var LockTypes = []LockType{LockReentrant, LockFair, LockReadWrite, LockSemaphore, LockString}

const (
	lockMaxFields  = 1024
	fairQueuePfx   = "redisson_lock_queue:{"
	fairTimeoutPfx = "redisson_lock_timeout:{"
	semTimeoutPfx  = "redisson__timeout__set:{"
)

// LockHolder is one holder: its id (Redisson's "<client id>:<thread id>",
// a permit id, a SET NX token) and how many times it holds the lock.
type LockHolder struct {
	ID    string
	Count int64
	// LeaseMs is the holder's own remaining lease (a semaphore permit),
	// -1 when the lock's lease is the holder's.
	LeaseMs int64
}

// LockWaiter is a client queued for a fair lock, with the ms left before
// its wait times out (-1 unknown).
type LockWaiter struct {
	ID        string
	TimeoutMs int64
}

// LockInfo is one lock.
type LockInfo struct {
	Key  string
	Type LockType
	// Mode is a read-write lock's "read" or "write".
	Mode string
	// LeaseMs is the lock key's remaining time to live, -1 without one.
	LeaseMs int64
	Holders []LockHolder
	Waiters []LockWaiter
	// Permits is a semaphore's available count, -1 when unknown.
	Permits int64
}

// Held reports whether someone holds the lock.
func (l *LockInfo) Held() bool { return len(l.Holders) > 0 }

// lockName is the name inside a "prefix{name}" companion key.
func lockName(key, prefix string) (string, bool) {
	if !strings.HasPrefix(key, prefix) || !strings.HasSuffix(key, "}") {
		return "", false
	}
	return key[len(prefix) : len(key)-1], true
}

// ClassifyLock describes the lock key is part of, or reports false. A
// companion key (a fair lock's queue or deadlines) is reported only when
// its lock key does not exist, so that each lock is listed once.
func ClassifyLock(db *store.DB, key string, now int64) (LockInfo, bool) {
	e := db.Lookup(key, now)
	if e == nil {
		return LockInfo{}, false
	}
	lease := int64(-1)
	if e.Expire != 0 {
		lease = max(e.Expire-now, 0)
	}
	switch v := e.Value.(type) {
	case *store.Hash:
		if v.Len() > lockMaxFields {
			return LockInfo{}, false
		}
		info := LockInfo{Key: key, Type: LockReentrant, LeaseMs: lease, Permits: -1}
		ok := true
		v.Range(func(f, val []byte) bool {
			if string(f) == "mode" {
				info.Mode = string(val)
				return true
			}
			n, isInt := redisnum.ParseInt(val)
			if !isInt || !strings.Contains(string(f), ":") {
				ok = false
				return false
			}
			info.Holders = append(info.Holders, LockHolder{ID: string(f), Count: n, LeaseMs: -1})
			return true
		})
		switch {
		case !ok:
			return LockInfo{}, false
		case info.Mode != "":
			if info.Mode != "read" && info.Mode != "write" {
				return LockInfo{}, false
			}
			info.Type = LockReadWrite
		case len(info.Holders) == 0:
			return LockInfo{}, false
		}
		if fairWaiters(db, key, now, &info) {
			info.Type = LockFair
		}
		return info, true
	case *store.List:
		name, ok := lockName(key, fairQueuePfx)
		if !ok || db.Lookup(name, now) != nil {
			return LockInfo{}, false
		}
		info := LockInfo{Key: name, Type: LockFair, LeaseMs: -1, Permits: -1}
		fairWaiters(db, name, now, &info)
		return info, true
	case *store.ZSet:
		if name, ok := lockName(key, fairTimeoutPfx); ok {
			// Reported with the lock, or with the queue when the lock
			// is free; a deadline set alone is no lock.
			_ = name
			return LockInfo{}, false
		}
		name, ok := lockName(key, semTimeoutPfx)
		if !ok {
			return LockInfo{}, false
		}
		info := LockInfo{Key: name, Type: LockSemaphore, LeaseMs: -1, Permits: -1}
		if pe := db.Lookup(name, now); pe != nil {
			if s, ok := pe.Value.(*store.String); ok {
				if n, ok := redisnum.ParseInt(s.B); ok {
					info.Permits = n
				}
			}
		}
		v.Range(func(member string, score float64) {
			if len(info.Holders) < lockMaxFields {
				info.Holders = append(info.Holders, LockHolder{ID: member, Count: 1, LeaseMs: max(int64(score)-now, 0)})
			}
		})
		return info, true
	case *store.String:
		if e.Expire == 0 || strings.Contains(key, ":rwlock_timeout:") {
			// A read lock's per-hold lease keys ({name}:<id>:rwlock_timeout:<n>,
			// "1" with a TTL) are part of the read lock, not locks.
			return LockInfo{}, false
		}
		if db.Lookup(semTimeoutPfx+key+"}", now) != nil {
			return LockInfo{}, false // a semaphore's count: listed with its permits
		}
		return LockInfo{Key: key, Type: LockString, LeaseMs: lease, Permits: -1,
			Holders: []LockHolder{{ID: string(v.B), Count: 1, LeaseMs: -1}}}, true
	}
	return LockInfo{}, false
}

// fairWaiters adds the waiters of fair lock name to info, reporting
// whether it has a queue or deadline set (it is a fair lock).
func fairWaiters(db *store.DB, name string, now int64, info *LockInfo) bool {
	var deadlines *store.ZSet
	if te := db.Lookup(fairTimeoutPfx+name+"}", now); te != nil {
		deadlines, _ = te.Value.(*store.ZSet)
	}
	qe := db.Lookup(fairQueuePfx+name+"}", now)
	if qe == nil {
		return deadlines != nil
	}
	q, ok := qe.Value.(*store.List)
	if !ok {
		return deadlines != nil
	}
	for i := 0; i < q.Len() && i < lockMaxFields; i++ {
		id := q.Index(i)
		w := LockWaiter{ID: string(id), TimeoutMs: -1}
		if deadlines != nil {
			if sc, ok := deadlines.Score(id); ok {
				w.TimeoutMs = max(int64(sc)-now, 0)
			}
		}
		info.Waiters = append(info.Waiters, w)
	}
	return true
}

// LockCounts are the lock sampler's figures as of its last completed
// pass over every database.
type LockCounts struct {
	Held    map[LockType]int
	Holders map[LockType]int
	Waiters int
	// At is when the pass completed; zero before the first.
	At int64
}

// lockSampler walks the keyspace a few keys per Cron tick, classifying
// them, and publishes the counts when a pass completes: the counts cost
// lockSampleStep keys of work a tick (hz times a second), never a scan of
// the keyspace at once, and are as old as a pass (keys / (step * hz)
// seconds: 10 s for 10^5 keys at the defaults).
type lockSampler struct {
	on     bool // Options.SampleLocks
	db     int
	cursor uint64
	cur    LockCounts
	done   LockCounts
}

const lockSampleStep = 256

// LockCounts returns the sampler's last completed pass (At is 0 before
// one completed).
func (e *Engine) LockCounts() LockCounts { return e.locks.done }

// sampleLocks advances the sampler one step (Cron).
func (e *Engine) sampleLocks(now int64) {
	ls := &e.locks
	if !ls.on {
		return
	}
	if ls.cur.Held == nil {
		ls.cur = LockCounts{Held: map[LockType]int{}, Holders: map[LockType]int{}}
	}
	visited := 0
	for visited < lockSampleStep {
		if ls.db >= len(e.DBs) {
			ls.cur.At = now
			ls.done, ls.cur = ls.cur, LockCounts{Held: map[LockType]int{}, Holders: map[LockType]int{}}
			ls.db, ls.cursor = 0, 0
			return
		}
		db := e.DBs[ls.db]
		var keys []string
		ls.cursor = db.Scan(ls.cursor, func(key string, _ *store.Entry) { keys = append(keys, key) })
		for _, k := range keys {
			visited++
			if info, ok := ClassifyLock(db, k, now); ok {
				if info.Held() {
					ls.cur.Held[info.Type]++
					ls.cur.Holders[info.Type] += len(info.Holders)
				}
				ls.cur.Waiters += len(info.Waiters)
				// A lock of many holders or waiters cost as much to
				// classify: it counts toward the step's work.
				visited += (len(info.Holders) + len(info.Waiters)) / 16
			}
		}
		visited++
		if ls.cursor == 0 {
			ls.db++
		}
	}
}
