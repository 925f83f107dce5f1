package store

import (
	"container/heap"

	"github.com/lockkv/lockkv/internal/dict"
)

// Entry is one key's value and deadline.
type Entry struct {
	Value Value
	// Expire is the absolute deadline in Unix milliseconds; 0 means none.
	Expire int64
	// Access is the last access time in Unix milliseconds (OBJECT
	// IDLETIME) or, with AccessLFU set, the LFU data of an LFU
	// maxmemory-policy (OBJECT FREQ): the 24 bits Redis keeps in an
	// object's lru field, minutes<<8 | log counter. The keys written
	// under one policy keep their data under the other, as in Redis.
	Access int64
}

// AccessLFU marks an Entry.Access holding LFU data.
const AccessLFU = 1 << 62

// Expired reports whether the entry's deadline has passed at now.
func (e *Entry) Expired(now int64) bool { return e.Expire != 0 && e.Expire <= now }

// DB is one numbered database.
type DB struct {
	keys    *dict.Dict[Entry]
	expires int
	// deadlines is a min-heap of (deadline, key). It may hold stale items for
	// keys whose deadline changed; they are skipped when popped and purged
	// when they outnumber live deadlines.
	deadlines deadlineHeap
}

// NewDB returns an empty database.
func NewDB() *DB { return &DB{keys: dict.New[Entry]()} }

// Len returns the number of keys, including expired keys not yet reclaimed
// (as Redis's DBSIZE does).
func (db *DB) Len() int { return db.keys.Len() }

// ExpiresLen returns how many keys have a deadline.
func (db *DB) ExpiresLen() int { return db.expires }

// Lookup returns key's entry, or nil when the key is missing or expired at
// now. It does not delete expired keys (see DeleteIfExpired).
func (db *DB) Lookup(key string, now int64) *Entry {
	e := db.keys.Get(key)
	if e == nil || e.Expired(now) {
		return nil
	}
	return e
}

// Peek returns key's entry even if it is expired.
func (db *DB) Peek(key string) *Entry { return db.keys.Get(key) }

// DeleteIfExpired removes key if it exists and is expired at now, and
// reports whether it did.
func (db *DB) DeleteIfExpired(key string, now int64) bool {
	e := db.keys.Get(key)
	if e == nil || !e.Expired(now) {
		return false
	}
	db.Delete(key)
	return true
}

// Set stores v under key with deadline expire (0 for none), replacing any
// previous value and deadline. It returns the entry. access is the new
// key's Access; a key replaced under LFU (access has AccessLFU) keeps its
// LFU data, as Redis's dbSetValue keeps the old object's lru.
func (db *DB) Set(key string, v Value, expire int64, access int64) *Entry {
	e, added := db.keys.Upsert(key)
	old := int64(0)
	if !added && e.Expire != 0 {
		old = e.Expire
		db.expires--
	}
	e.Value = v
	e.Expire = 0
	if added || access&AccessLFU == 0 {
		e.Access = access
	}
	if expire != 0 {
		db.setDeadline(key, e, expire, old)
	}
	return e
}

// Overwrite is Set for a key whose live entry e the caller has just looked
// up (nothing removed it since): the entry is updated in place, without a
// second lookup. key is read only to share the stored key with a new
// deadline.
func (db *DB) Overwrite(key []byte, e *Entry, v Value, expire int64, access int64) {
	old := e.Expire
	if old != 0 {
		db.expires--
	}
	e.Value = v
	e.Expire = 0
	if access&AccessLFU == 0 {
		e.Access = access
	}
	if expire != 0 {
		stored := ""
		if old == 0 || expire < old { // setDeadline files an item
			stored, _ = db.keys.GetKey(string(key))
		}
		db.setDeadline(stored, e, expire, old)
	}
}

// ReplaceEntry is Replace for a key whose live entry e the caller has just
// looked up: the value changes in place and the deadline stays.
func (db *DB) ReplaceEntry(e *Entry, v Value, access int64) {
	e.Value = v
	if access&AccessLFU == 0 {
		e.Access = access
	}
}

// Replace stores v under key, keeping the key's current deadline (as
// Redis's KEEPTTL and in-place updates do). A missing key gets no deadline.
// access is as for Set.
func (db *DB) Replace(key string, v Value, access int64) *Entry {
	e, added := db.keys.Upsert(key)
	e.Value = v
	if added || access&AccessLFU == 0 {
		e.Access = access
	}
	return e
}

// Delete removes key, reporting whether it existed.
func (db *DB) Delete(key string) bool {
	e := db.keys.Get(key)
	if e == nil {
		return false
	}
	if e.Expire != 0 {
		db.expires--
	}
	db.keys.Delete(key)
	return true
}

// SetExpire sets key's deadline (0 removes it) and reports whether the key
// exists.
func (db *DB) SetExpire(key string, at int64) bool {
	stored, e := db.keys.GetKey(key) // the heap shares the stored key
	if e == nil {
		return false
	}
	old := e.Expire
	if e.Expire != 0 {
		db.expires--
		e.Expire = 0
	}
	if at != 0 {
		db.setDeadline(stored, e, at, old)
	}
	return true
}

// setDeadline gives e the deadline at. old is the deadline the key had
// until now (0 for none).
//
// The heap holds, for every key with a deadline, an item at or before that
// deadline (TakeDue's keys excepted, see there). A deadline that moves
// later (a lease renewed, PEXPIRE 30000 a moment after the last one) or
// stays pushes nothing: the item filed for the old deadline stays, and when
// it comes due ExpireDue or TakeDue finds the key's deadline later and
// files it again then (once per lease that really runs out, not once per
// renewal). Pushing at every renewal made a renewal-heavy load (lock
// clients re-entering and renewing 100,000 leases) grow the heap by an item
// per renewal and stop the command goroutine for a compaction of it every
// few hundred thousand renewals: tens of milliseconds with 100,000 keys.
// An earlier deadline needs an item of its own.
func (db *DB) setDeadline(key string, e *Entry, at, old int64) {
	e.Expire = at
	db.expires++
	if old != 0 && at >= old {
		return
	}
	db.deadlines.push(deadline{at: at, key: key})
	if len(db.deadlines) > 64 && len(db.deadlines) > 4*db.expires {
		db.compactDeadlines()
	}
}

// due looks at heap item d, just popped: it reports whether d's key is due
// (its deadline is d's). A key whose deadline moved later is filed again at
// its deadline; an item of a key gone, without a deadline or with an
// earlier one (which has its own item) is dropped.
func (db *DB) due(d deadline) (*Entry, bool) {
	e := db.keys.Get(d.key)
	switch {
	case e == nil || e.Expire == 0 || e.Expire < d.at:
		return nil, false
	case e.Expire > d.at:
		db.deadlines.push(deadline{at: e.Expire, key: d.key})
		return nil, false
	}
	return e, true
}

// Refile gives key, if it has a deadline, a heap item at it: for a key
// TakeDue returned whose expiry did not remove it.
func (db *DB) Refile(key string) {
	if stored, e := db.keys.GetKey(key); e != nil && e.Expire != 0 {
		db.deadlines.push(deadline{at: e.Expire, key: stored})
	}
}

// compactDeadlines drops stale heap items, and duplicates: a key deleted
// and re-created has two items that both look live. An item left behind by
// a later deadline is moved to it.
func (db *DB) compactDeadlines() {
	live := db.deadlines[:0]
	seen := make(map[string]struct{}, db.expires)
	for _, d := range db.deadlines {
		if e := db.keys.Get(d.key); e != nil && e.Expire != 0 && d.at <= e.Expire {
			if _, dup := seen[d.key]; dup {
				continue
			}
			seen[d.key] = struct{}{}
			d.at = e.Expire
			live = append(live, d)
		}
	}
	for i := len(live); i < len(db.deadlines); i++ {
		db.deadlines[i] = deadline{}
	}
	db.deadlines = live
	heap.Init(&db.deadlines)
}

// NextDeadline returns the earliest pending deadline, or 0 if none. It may
// be a stale deadline; it is never later than the true earliest one.
func (db *DB) NextDeadline() int64 {
	if len(db.deadlines) == 0 {
		return 0
	}
	return db.deadlines[0].at
}

// ExpireDue removes up to max keys whose deadline is at or before now,
// calling fn(key) for each just before it is removed, and returns how many
// it removed. Only keys that are due are examined, so the cost is
// proportional to the work done, never to the size of the keyspace.
func (db *DB) ExpireDue(now int64, max int, fn func(key string)) int {
	n := 0
	for n < max && len(db.deadlines) > 0 && db.deadlines[0].at <= now {
		d := db.deadlines.pop()
		if _, ok := db.due(d); !ok {
			continue
		}
		if fn != nil {
			fn(d.key)
		}
		db.Delete(d.key)
		n++
	}
	return n
}

// TakeDue pops up to max deadlines that are due at now and still belong to
// their key, and returns those keys, which stay in the keyspace: a
// replicated leader proposes their expiry as a log entry, a follower waits
// for it. Stale items are dropped on the way, and keys whose deadline moved
// later filed again. A key TakeDue returned has no heap item left: if its
// expiry does not remove it (its lease was renewed meanwhile), Refile gives
// it one; on a follower, RebuildDeadlines does when it becomes leader.
func (db *DB) TakeDue(now int64, max int) []string {
	var out []string
	for len(out) < max && len(db.deadlines) > 0 && db.deadlines[0].at <= now {
		d := db.deadlines.pop()
		if _, ok := db.due(d); ok {
			out = append(out, d.key)
		}
	}
	return out
}

// RebuildDeadlines rebuilds the deadline heap from the keyspace (a node that
// becomes leader, after following with TakeDue).
func (db *DB) RebuildDeadlines() {
	h := make(deadlineHeap, 0, db.expires)
	db.keys.Range(func(key string, e *Entry) bool {
		if e.Expire != 0 {
			h = append(h, deadline{at: e.Expire, key: key})
		}
		return true
	})
	heap.Init(&h)
	db.deadlines = h
}

// Touch brings the hash table's entries for keys into cache ahead of a
// pipeline's lookups (see dict.Touch); it changes nothing.
func (db *DB) Touch(keys []string) uint64 {
	return db.keys.Touch(keys, touchValue)
}

// touchValue reads the first bytes a command will read of ent's value.
func touchValue(ent *Entry) uint64 {
	switch v := ent.Value.(type) {
	case *String:
		if len(v.B) > 0 {
			return uint64(v.B[0])
		}
	case *Hash:
		return v.touch()
	case *ZSet:
		if len(v.lp) > 0 {
			return uint64(len(v.lp[0].member))
		}
	case *List:
		if v.n > 0 {
			return uint64(len(v.buf[v.head]))
		}
	}
	return 0
}

// Flush removes every key.
func (db *DB) Flush() {
	db.keys.Clear()
	db.expires = 0
	db.deadlines = nil
}

// Range calls fn for every key, expired or not, until fn returns false. fn
// must not modify the database.
func (db *DB) Range(fn func(key string, e *Entry) bool) { db.keys.Range(fn) }

// RangeShard is Range over shard i of n (see dict.Dict.RangeShard): the
// shards may be ranged concurrently while nothing modifies the database.
func (db *DB) RangeShard(i, n int, fn func(key string, e *Entry) bool) {
	db.keys.RangeShard(i, n, fn)
}

// Scan continues a SCAN iteration at cursor (see dict.Dict.Scan).
func (db *DB) Scan(cursor uint64, fn func(key string, e *Entry)) uint64 {
	return db.keys.Scan(cursor, fn)
}

// Random returns a random key (expired ones included; callers retry).
func (db *DB) Random(rnd func(n uint64) uint64) (string, *Entry, bool) {
	return db.keys.Random(rnd)
}

// Swap exchanges the contents of two databases (SWAPDB).
func (db *DB) Swap(other *DB) { *db, *other = *other, *db }

type deadline struct {
	at  int64
	key string
}

// deadlineHeap is a binary min-heap on at. It is written out rather than
// using container/heap, whose interface{} Push/Pop allocate on every call.
type deadlineHeap []deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h deadlineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *deadlineHeap) Push(x any)        { *h = append(*h, x.(deadline)) }
func (h *deadlineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = deadline{}
	*h = old[:len(old)-1]
	return x
}

func (h *deadlineHeap) push(d deadline) {
	*h = append(*h, d)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].at <= s[i].at {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *deadlineHeap) pop() deadline {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = deadline{}
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].at < s[l].at {
			m = r
		}
		if s[i].at <= s[m].at {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}
