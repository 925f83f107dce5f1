package commands

import (
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// DUMP and RESTORE (Redis's cluster.c): a value moves as Redis 7.0's
// payload (internal/rdb), so it goes between lockkv and redis-server
// both ways.

var dumpCommands = []*engine.Spec{
	{Name: "dump", Arity: 2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: dumpCmd}, // NodeLocal: a hashtable-encoded value is serialised in this node's table order
	{Name: "restore", Arity: -4, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate)}, ACL: []string{"keyspace", "dangerous"}, Fn: restoreCmd},
}

func init() { engine.Register(dumpCommands) }

func dumpCmd(c *engine.Ctx, args [][]byte) {
	e := c.Lookup(args[1])
	if e == nil {
		c.W.Null()
		return
	}
	c.W.Bulk(rdb.Payload(e.Value, c.E.DumpConfig()))
}

func restoreCmd(c *engine.Ctx, args [][]byte) {
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
				c.Error(engine.ErrNotInt)
				return
			}
			if n < 0 {
				c.Error(engine.ErrRestoreIdle)
				return
			}
			lruIdle = n
			j++
		case cstr.EqualFold(cstr.CString(args[j]), "freq") && more >= 1 && lruIdle == -1:
			n, ok := redisnum.ParseInt(args[j+1])
			if !ok {
				c.Error(engine.ErrNotInt)
				return
			}
			if n < 0 || n > 255 {
				c.Error(engine.ErrRestoreFreq)
				return
			}
			lfuFreq = n
			j++
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	if !replace && c.LookupWrite(key) != nil {
		c.Error(engine.ErrBusyKey)
		return
	}
	ttl, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if ttl < 0 {
		c.Error(engine.ErrRestoreTTL)
		return
	}
	payload := args[3]
	if !rdb.VerifyPayload(payload) {
		c.Error(engine.ErrDumpPayload)
		return
	}
	v, err := rdb.DecodePayload(payload, c.E.RDBLimits())
	if err != nil {
		c.Error(engine.ErrBadDataFormat)
		return
	}
	k := string(key)
	deleted := false
	if replace {
		if c.ExpireIfNeeded(key) != nil {
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
	c.DB.Set(k, v, ttl, c.RestoredAccess(lfuFreq, lruIdle))
	c.ReadyIfBlockable(c.C.DB, k, v)
	notifyNew(c, key)
	c.Modified(key)
	c.Notify(config.NotifyGeneric, "restore", key)
	c.W.OK()
}
