package commands

import (
	"strconv"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
)

var lockCommands = []*engine.Spec{
	{Name: "lockkv.locks", Arity: -2, Flags: engine.ReadOnly | engine.NoScript | engine.Loading | engine.Stale, ACL: []string{"keyspace"}, Origin: engine.OriginLockkv, Doc: docLockkvLocks, Fn: lockkvLocks},
}

func init() { engine.Register(lockCommands) }

// LOCKKV.LOCKS cursor [MATCH pattern] [COUNT count] [TYPE layout]: one
// SCAN step of the current database (the same cursor, MATCH against the
// lock's name, COUNT as SCAN's), replying [next cursor, [lock, ...]],
// each lock a map: name, type, lease_ms, holders ([id, count, lease_ms]
// each), waiters ([id, timeout_ms] each), and mode or permits where they
// apply. A key MATCH leaves out is not classified at all.
func lockkvLocks(c *engine.Ctx, args [][]byte) {
	cursor, ok := scanCursor(c, args[1])
	if !ok {
		return
	}
	opts, ok := scanOptions(c, args[2:], true)
	if !ok {
		return
	}
	cursor, keys := scanKeys(c, cursor, opts.Count)
	var locks []engine.LockInfo
	for _, key := range keys {
		info, ok := engine.ClassifyLock(c.DB, key, c.Now)
		if !ok || !opts.MatchesString(info.Key) || (opts.Type != nil && !cstr.EqualFold(cstr.CString(opts.Type), string(info.Type))) {
			continue
		}
		locks = append(locks, info)
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(cursor, 10))
	c.W.Array(len(locks))
	for _, l := range locks {
		n := 5
		if l.Mode != "" || l.Type == engine.LockReadWrite {
			n++
		}
		if l.Type == engine.LockSemaphore {
			n++
		}
		c.W.Map(n)
		c.W.BulkString("name")
		c.W.BulkString(l.Key)
		c.W.BulkString("type")
		c.W.BulkString(string(l.Type))
		if l.Mode != "" || l.Type == engine.LockReadWrite {
			c.W.BulkString("mode")
			c.W.BulkString(l.Mode)
		}
		if l.Type == engine.LockSemaphore {
			c.W.BulkString("permits")
			c.W.Int(l.Permits)
		}
		c.W.BulkString("lease_ms")
		c.W.Int(l.LeaseMs)
		c.W.BulkString("holders")
		c.W.Array(len(l.Holders))
		for _, h := range l.Holders {
			c.W.Array(3)
			c.W.BulkString(h.ID)
			c.W.Int(h.Count)
			c.W.Int(h.LeaseMs)
		}
		c.W.BulkString("waiters")
		c.W.Array(len(l.Waiters))
		for _, w := range l.Waiters {
			c.W.Array(2)
			c.W.BulkString(w.ID)
			c.W.Int(w.TimeoutMs)
		}
	}
}

// docLockkvLocks is LOCKKV.LOCKS's COMMAND DOCS (lockkv's own).
var docLockkvLocks = &engine.Doc{
	Summary:    "Lists the locks among the keys one SCAN step visits: Redisson's reentrant, fair and read-write locks and permit-expirable semaphores, and SET NX locks, with holders, hold counts, leases and waiters.",
	Since:      "1.0.0",
	Group:      "generic",
	Complexity: "O(N) for the keys visited, as SCAN.",
	Args: []engine.DocArg{
		{Name: "cursor", Type: "integer"},
		{Name: "pattern", Type: "pattern", Token: "MATCH", Flags: []string{"optional"}},
		{Name: "count", Type: "integer", Token: "COUNT", Flags: []string{"optional"}},
		{Name: "type", Type: "string", Token: "TYPE", Flags: []string{"optional"}},
	},
}
