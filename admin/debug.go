package admin

import (
	"runtime"
	rtdebug "runtime/debug"
	"strconv"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// debug implements the cheap DEBUG subcommands.
func debug(c *engine.Ctx, args [][]byte) {
	switch {
	case cstr.EqualFold(args[1], "sleep") && len(args) == 3:
		f, _, _ := redisnum.Strtod(cstr.CString(args[2])) // strtod(argv[2], NULL): "1x" sleeps 1s
		if f > 0 {
			time.Sleep(time.Duration(f * float64(time.Second)))
		}
		c.W.OK()
	case cstr.EqualFold(args[1], "object") && len(args) == 3:
		e := c.DB.Lookup(string(args[2]), c.Now)
		if e == nil {
			c.Error(engine.ErrNoSuchKey)
			return
		}
		c.W.Status("Value at:0x0 refcount:" + strconv.FormatInt(engine.Refcount(e.Value), 10) +
			" encoding:" + e.Value.Encoding() + " serializedlength:0 lru:0 lru_seconds_idle:" +
			strconv.FormatInt(c.E.KeyIdleSeconds(e, c.Now), 10))
	default:
		c.Error(engine.ErrSubcommandSyntax("debug", args[1]))
	}
}

// memoryUsage estimates a key's footprint: key, entry and the value's own
// estimate (Sizer), or a per-element guess. Redis's figure comes from its
// allocator and differs; only the reply's shape is comparable.
func memoryUsage(c *engine.Ctx, args [][]byte) {
	for i := 3; i < len(args); i += 2 {
		if !cstr.EqualFold(args[i], "samples") || i+1 >= len(args) {
			c.Error(engine.ErrSyntax)
			return
		}
		n, ok := redisnum.ParseInt(args[i+1])
		if !ok {
			c.Error(engine.ErrNotInt)
			return
		}
		if n < 0 {
			c.Error(engine.ErrSyntax)
			return
		}
	}
	e := c.DB.Lookup(string(args[2]), c.Now)
	if e == nil {
		c.W.Null()
		return
	}
	c.W.Int(estimateSize(len(args[2]), e.Value))
}

// memoryPurge is Redis's jemalloc purge: here a full GC that returns free
// pages to the OS, so that used_memory (the live heap at the last
// collection) and RSS count live data only, as lockkv-bench's memory
// measurement expects.
func memoryPurge(c *engine.Ctx, args [][]byte) {
	rtdebug.FreeOSMemory()
	c.W.OK()
}

// Sizer is implemented by values that can estimate their memory use.
type Sizer interface{ MemoryUsage() int64 }

func estimateSize(keyLen int, v store.Value) int64 {
	n := int64(keyLen) + 24 + 16 // key sds, dict entry, robj
	switch x := v.(type) {
	case *store.String:
		if x.Encoding() == "int" {
			return n
		}
		n += int64(len(x.B)) + 3
	case Sizer:
		n += x.MemoryUsage()
	case interface{ Len() int }:
		n += 64 + 24*int64(x.Len())
	default:
		n += 64
	}
	return (n + 7) &^ 7
}

func memoryDoctor(c *engine.Ctx, args [][]byte) {
	c.W.Verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.", "txt")
}

// memoryStats reports Redis's MEMORY STATS fields; the allocator figures
// come from the Go runtime, the per-database overheads are estimates.
func memoryStats(c *engine.Ctx, args [][]byte) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := int64(ms.HeapAlloc)
	keys := int64(0)
	type dbStat struct {
		idx  int
		main int64
		exp  int64
	}
	var dbs []dbStat
	for i, db := range c.E.DBs {
		n := int64(db.Len())
		keys += n
		if n > 0 {
			dbs = append(dbs, dbStat{i, n * 40, int64(db.ExpiresLen()) * 32})
		}
	}
	perKey := int64(0)
	if keys > 0 {
		perKey = used / keys
	}
	w := c.W
	w.Map(27 + len(dbs))
	pair := func(k string, v int64) { w.BulkString(k); w.Int(v) }
	double := func(k string, v float64) { w.BulkString(k); w.Double(v) }
	pair("peak.allocated", used)
	pair("total.allocated", used)
	pair("startup.allocated", 0)
	pair("replication.backlog", 0)
	pair("clients.slaves", 0)
	pair("clients.normal", 0)
	pair("cluster.links", 0)
	pair("aof.buffer", 0)
	pair("lua.caches", 0)
	pair("functions.caches", 0)
	for _, d := range dbs {
		w.BulkString("db." + strconv.Itoa(d.idx))
		w.Map(3)
		pair("overhead.hashtable.main", d.main)
		pair("overhead.hashtable.expires", d.exp)
		pair("overhead.hashtable.slot-to-keys", 0)
	}
	pair("overhead.total", 0)
	pair("keys.count", keys)
	pair("keys.bytes-per-key", perKey)
	pair("dataset.bytes", used)
	double("dataset.percentage", 100)
	double("peak.percentage", 100)
	pair("allocator.allocated", used)
	pair("allocator.active", int64(ms.HeapInuse))
	pair("allocator.resident", int64(ms.Sys))
	double("allocator-fragmentation.ratio", 1)
	pair("allocator-fragmentation.bytes", 0)
	double("allocator-rss.ratio", 1)
	pair("allocator-rss.bytes", 0)
	double("rss-overhead.ratio", 1)
	pair("rss-overhead.bytes", 0)
	double("fragmentation", 1)
	pair("fragmentation.bytes", 0)
}

func memoryMallocStats(c *engine.Ctx, args [][]byte) {
	c.W.Verbatim("Stats not supported for the current allocator", "txt")
}

var memoryHelpLines = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

func memoryHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "memory", memoryHelpLines) }
