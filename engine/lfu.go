package engine

import "github.com/lockkv/lockkv/store"

// Key access data: Redis's LRU clock and LFU counter (evict.c, object.c).
//
// Under an LRU maxmemory-policy (the default) a key's store.Entry.Access
// is its last access time in Unix ms; OBJECT IDLETIME counts the seconds
// of Redis's LRU clock since. Under allkeys-lfu and volatile-lfu it holds,
// flagged by store.AccessLFU, the 24 bits Redis keeps in the object's lru
// field: the minutes clock of the last access (16 bits) and a logarithmic
// access counter (8 bits). A new key starts at LFU_INIT_VAL; each access
// (lookupKey: reads and writes, not OBJECT, TYPE, EXISTS, TTL) first
// decays the counter by one per lfu-decay-time minutes since the last
// access, then increments it with probability 1/((counter-5)*lfu-log-factor+1).
// Switching policies converts nothing: LFU data read as an LRU clock (and
// an LRU time read as LFU data) gives what Redis gives, from the same bits.

const (
	lfuInitVal  = 5         // LFU_INIT_VAL
	lruClockMax = 1<<24 - 1 // LRU_CLOCK_MAX
)

// lfuMinutes is LFUGetTimeInMinutes at now (Unix ms).
func lfuMinutes(now int64) int64 { return (now / 1000 / 60) & 65535 }

// lruBits is what Redis's lru field holds for access data a: the LFU
// data, or the LRU clock (seconds, 24 bits) of the access time.
func lruBits(a int64) int64 {
	if a&store.AccessLFU != 0 {
		return a & lruClockMax
	}
	return (a / 1000) & lruClockMax
}

func lfuData(now, counter int64) int64 {
	return store.AccessLFU | lfuMinutes(now)<<8 | counter
}

// lfuDecr is LFUDecrAndReturn: a's counter less one per lfu-decay-time
// minutes since its last access.
func (e *Engine) lfuDecr(a, now int64) int64 {
	lru := lruBits(a)
	ldt, counter := lru>>8, lru&255
	if d := int64(e.Config.LFUDecayTime); d > 0 {
		t := lfuMinutes(now)
		elapsed := t - ldt // LFUTimeElapsed
		if t < ldt {
			elapsed = 65535 - ldt + t
		}
		counter = max(counter-elapsed/d, 0)
	}
	return counter
}

// lfuLogIncr is LFULogIncr. Its draw is the node's own, also while an
// entry is applied: whether an access draws depends on what only this
// node did (the leader's reads raise its counters, to 255 where no draw
// is made; a NO-TOUCH client of the leader skips the access), so a draw
// from the entry's numbers would move the choices the entry makes after
// it (SPOP, RANDOMKEY...) on some nodes only. The counters are each
// node's own, as on a Redis replica (lockkv never evicts; OBJECT FREQ
// reads them).
func (e *Engine) lfuLogIncr(counter int64) int64 {
	if counter == 255 {
		return 255
	}
	base := max(float64(counter-lfuInitVal), 0)
	if e.nodeRand().Float64() < 1/(base*float64(e.Config.LFULogFactor)+1) {
		counter++
	}
	return counter
}

// accessed returns access data a after an access at now: the time under
// LRU, updateLFU under LFU.
func (e *Engine) accessed(a, now int64) int64 {
	if !e.Config.LFU {
		return now
	}
	return lfuData(now, e.lfuLogIncr(e.lfuDecr(a, now)))
}

// newAccess is the access data of a value created at now (createObject).
func (e *Engine) newAccess(now int64) int64 {
	if !e.Config.LFU {
		return now
	}
	return lfuData(now, lfuInitVal)
}

// NewAccess is the access data of a value the command creates.
func (c *Ctx) NewAccess() int64 { return c.E.newAccess(c.Now) }

// idleSeconds is estimateObjectIdleTime/1000 for access data a at now.
func idleSeconds(a, now int64) int64 {
	if a&store.AccessLFU == 0 {
		return max(now/1000-a/1000, 0)
	}
	clock, lru := (now/1000)&lruClockMax, a&lruClockMax
	if clock >= lru {
		return clock - lru
	}
	return clock + lruClockMax - lru
}

// keyAccess is the access data OBJECT reads for e: a shared integer's is
// the shared object's.
func (e *Engine) keyAccess(ent *store.Entry) int64 {
	if n, ok := sharedInt(ent.Value); ok {
		return e.sharedAccessTime(n)
	}
	return ent.Access
}

// InheritShared is called after key e was overwritten: if its value is
// now a shared integer, under LFU that object takes the key's LFU data
// (dbSetValue copies the old object's lru into the new one, here the
// shared object all keys holding the integer see).
func (c *Ctx) InheritShared(e *store.Entry) {
	if !c.E.Config.LFU {
		return
	}
	if n, ok := sharedInt(e.Value); ok {
		*c.E.sharedSlot(n) = e.Access
	}
}

// RestoredAccess is objectSetLRUOrLFU for a restored value: FREQ under an
// LFU policy, IDLETIME (seconds on Redis's 24-bit LRU clock) otherwise,
// else the access data of a new value.
func (c *Ctx) RestoredAccess(lfuFreq, lruIdle int64) int64 {
	if c.E.Config.LFU {
		if lfuFreq >= 0 {
			return lfuData(c.Now, lfuFreq)
		}
		return c.NewAccess()
	}
	if lruIdle < 0 {
		return c.NewAccess()
	}
	clock := (c.Now / 1000) & lruClockMax
	abs := clock - lruIdle
	if abs < 0 {
		abs += lruClockMax
	}
	lru := abs & lruClockMax // the object's 24-bit lru field
	var idle int64           // estimateObjectIdleTime, in seconds
	if clock >= lru {
		idle = clock - lru
	} else {
		idle = clock + lruClockMax - lru
	}
	return c.Now - idle*1000
}
