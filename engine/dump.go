package engine

import (
	"math"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// DUMP and RESTORE (Redis's cluster.c): a value moves as Redis 7.0's
// payload (internal/rdb), so it goes between lockkv and redis-server
// both ways.

var dumpCommands = []*Spec{
	{Name: "dump", Arity: 2, Flags: ReadOnly, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: dumpCmd},
	{Name: "restore", Arity: -4, Flags: Write | DenyOOM, KeySpecs: []KeySpec{Key1(KeyOW | KeyUpdate)}, ACL: []string{"keyspace", "dangerous"}, Fn: restoreCmd},
}

func init() { Register(dumpCommands) }

// dumpConfig is what the written form of a value depends on.
func (e *Engine) dumpConfig() rdb.DumpConfig {
	return rdb.DumpConfig{ListMaxListpackSize: e.Config.ListMaxListpackSize, ListCompressDepth: e.Config.ListCompressDepth}
}

// rdbLimits is how loaded values are encoded and bounded.
func (e *Engine) rdbLimits() rdb.Limits {
	cfg := e.Config
	return rdb.Limits{
		HashMaxListpackEntries: cfg.HashMaxListpackEntries,
		HashMaxListpackValue:   cfg.HashMaxListpackValue,
		SetMaxIntsetEntries:    cfg.SetMaxIntsetEntries,
		ZSetMaxListpackEntries: cfg.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   cfg.ZSetMaxListpackValue,
		MaxString:              int(min(cfg.ProtoMaxBulkLen, math.MaxInt32)),
	}
}

func dumpCmd(c *Ctx, args [][]byte) {
	e := c.Lookup(args[1])
	if e == nil {
		c.W.Null()
		return
	}
	c.W.Bulk(rdb.Payload(e.Value, c.E.dumpConfig()))
}

func restoreCmd(c *Ctx, args [][]byte) {
	var (
		replace, absttl  bool
		lfuFreq, lruIdle int64 = -1, -1
		key                    = args[1]
	)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case cstr.EqualFold(cstr.CString(args[j]), "replace"):
			replace = true
		case cstr.EqualFold(cstr.CString(args[j]), "absttl"):
			absttl = true
		case cstr.EqualFold(cstr.CString(args[j]), "idletime") && more >= 1 && lfuFreq == -1:
			n, ok := redisnum.ParseInt(args[j+1])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			if n < 0 {
				c.Error(ErrRestoreIdle)
				return
			}
			lruIdle = n
			j++
		case cstr.EqualFold(cstr.CString(args[j]), "freq") && more >= 1 && lruIdle == -1:
			n, ok := redisnum.ParseInt(args[j+1])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			if n < 0 || n > 255 {
				c.Error(ErrRestoreFreq)
				return
			}
			lfuFreq = n
			j++
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if !replace && c.LookupWrite(key) != nil {
		c.Error(ErrBusyKey)
		return
	}
	ttl, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if ttl < 0 {
		c.Error(ErrRestoreTTL)
		return
	}
	payload := args[3]
	if !rdb.VerifyPayload(payload) {
		c.Error(ErrDumpPayload)
		return
	}
	v, err := rdb.DecodePayload(payload, c.E.rdbLimits())
	if err != nil {
		c.Error(ErrBadDataFormat)
		return
	}
	k := string(key)
	deleted := false
	if replace {
		if c.liveForWrite(key) != nil {
			deleted = c.DB.Delete(k)
		}
	}
	if ttl != 0 && !absttl {
		ttl += c.Now // wraps as Redis's long long addition does
	}
	if ttl != 0 && ttl <= c.Now {
		// Already expired: Redis adds nothing (and deletes the old key).
		if deleted {
			c.Modified(key)
			c.Notify(config.NotifyGeneric, "del", key)
		}
		c.W.OK()
		return
	}
	c.DB.Set(k, v, ttl, c.restoredAccess(lfuFreq, lruIdle))
	c.readyIfBlockable(c.C.DB, k, v)
	c.notifyNew(key)
	c.Modified(key)
	c.Notify(config.NotifyGeneric, "restore", key)
	c.W.OK()
}

// restoredAccess is objectSetLRUOrLFU for a restored value: FREQ under an
// LFU policy, IDLETIME (seconds on Redis's 24-bit LRU clock) otherwise,
// else the access data of a new value.
func (c *Ctx) restoredAccess(lfuFreq, lruIdle int64) int64 {
	if c.E.Config.LFU {
		if lfuFreq >= 0 {
			return lfuData(c.Now, lfuFreq)
		}
		return c.newAccess()
	}
	if lruIdle < 0 {
		return c.newAccess()
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
