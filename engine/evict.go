package engine

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/scriptcache"
)

// maxmemory, as Redis 7.0's processCommand and evict.c under the
// noeviction policy: while used memory is over maxmemory, commands that
// may grow memory (CMD_DENYOOM: SET, HSET, ...; EVAL and FCALL of a
// script declaring flags without allow-oom or no-writes; EXEC of a
// transaction holding one) and every command queued inside MULTI are
// refused with -OOM before they run. Reads, DEL, UNLINK, EXPIRE and
// PUBLISH keep working. A script without flags starts, and its first
// write, if it may grow memory, fails with -OOM, judged by the state the
// script started in (pre_command_oom_state); once it wrote, it is not
// stopped halfway.
//
// lockkv never evicts: a key is removed only by its owner or its expiry.
// Evicting lock keys (or, under volatile-*, the leases of held locks)
// would hand out locks that are still held, and on a cluster every node
// would have to evict the same keys at the same point of the log. So
// CONFIG SET refuses maxmemory with any other maxmemory-policy (config/set.go);
// a policy alone, without a limit, still chooses LRU or LFU access data,
// as OBJECT reports it.
//
// Used memory is the Go heap: the live heap as the last garbage
// collection marked it (runtime/metrics /gc/heap/live:bytes), read at
// most once a millisecond, so the check costs a clock reading per
// command. It counts everything on the heap, keys and values, client
// buffers, scripts, as Redis's used_memory counts every allocation; it
// leaves out garbage not yet collected, which would otherwise refuse
// writes whenever the collector is behind. Between collections it does
// not see new data: when the heap (live data and garbage) passes
// maxmemory a collection is started (at most one every 100 ms), whose
// result then decides, and which also notices memory freed by DEL.
// INFO used_memory reports the same figure.
//
// On a Raft cluster the leader decides, at the gate in Exec, before it
// proposes; followers apply what was decided (as Redis replicas ignore
// maxmemory) and refuse or forward nothing on memory grounds. The state a
// script starts in travels in the op (Op.OOM), so a script stops at the
// same write on every node.

// memState is the engine's view of used memory.
type memState struct {
	samples   []metrics.Sample
	sampledAt int64  // monoNanos of the last reading, 0 for none
	used      uint64 // live heap at the last collection (or the heap before any)
	heap      uint64 // heap objects, garbage included
	// forcedAt is when a collection was last started here; gcRunning is
	// set while it runs.
	forcedAt  int64
	gcRunning atomic.Bool
	// oomAtStart is Redis's pre_command_oom_state: memory was over
	// maxmemory when the last command passed the gate. Scripts that
	// command runs (EVAL, or EXEC running one) are judged by it.
	oomAtStart bool
	// applyOOM is the same, for the op being applied (Op.OOM).
	applyOOM bool
}

const (
	memSampleEvery = int64(time.Millisecond)
	memForceGCGap  = int64(100 * time.Millisecond)
)

// usedMemory returns used memory as the maxmemory check sees it.
func (e *Engine) usedMemory() uint64 {
	m := &e.mem
	if now := monoNanos(); m.sampledAt == 0 || now-m.sampledAt >= memSampleEvery {
		m.sample(now, e.Config.Maxmemory)
	}
	return m.used
}

func (m *memState) sample(now int64, limit uint64) {
	if m.samples == nil {
		m.samples = []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/gc/cycles/total:gc-cycles"},
		}
	}
	metrics.Read(m.samples)
	val := func(i int) uint64 {
		if m.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return m.samples[i].Value.Uint64()
	}
	m.heap = val(1)
	m.used = val(0)
	if val(2) == 0 {
		m.used = m.heap // no collection yet: nothing is known to be garbage
	}
	m.sampledAt = now
	if limit != 0 && m.heap > limit && now-m.forcedAt >= memForceGCGap && m.gcRunning.CompareAndSwap(false, true) {
		m.forcedAt = now
		go func() {
			runtime.GC()
			m.gcRunning.Store(false)
		}()
	}
}

// maxmemoryChanged is called after CONFIG SET maxmemory: the next check
// reads memory afresh, and a limit under the memory in use is logged as
// Redis's updateMaxmemory logs it.
func (e *Engine) maxmemoryChanged() {
	e.mem.sampledAt = 0
	limit := e.Config.Maxmemory
	if used := e.usedMemory(); limit != 0 && limit < used {
		e.logger().Warn("WARNING: the new maxmemory value set via CONFIG SET (" + strconv.FormatUint(limit, 10) +
			") is smaller than the current memory usage (" + strconv.FormatUint(used, 10) +
			"). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.")
	}
}

// oomGate is processCommand's maxmemory step, for a client command that
// passed the authentication and MULTI checks; it reports whether the
// command was refused. Called only while maxmemory is set.
func (c *Ctx) oomGate(spec *Spec, args [][]byte) bool {
	e := c.E
	if e.repl != nil && !e.repl.leader {
		return false // the leader decides (replica-ignore-maxmemory)
	}
	if e.scripting != nil && e.scripting.busy {
		return false // isInsideYieldingLongCommand: the state is kept
	}
	oom := e.usedMemory() > e.Config.Maxmemory
	if oom && ((c.C.multi.active && !spec.OOMInMulti) || e.denyOOM(spec, args, c.C)) {
		c.rejectFor(spec, ErrOOM)
		return true
	}
	e.mem.oomAtStart = oom
	return false
}

// preCommandOOM is the state scripts are judged by: the op's when
// applying a replicated op, else the last gate's while maxmemory is set.
func (e *Engine) preCommandOOM() bool {
	if e.repl != nil && e.repl.applying {
		return e.mem.applyOOM
	}
	return e.Config.Maxmemory != 0 && e.mem.oomAtStart
}

// denyOOM is getCommandFlags(c) & CMD_DENYOOM: a script's declared flags
// replace EVAL's and FCALL's, and EXEC takes those of what it queued.
func (e *Engine) denyOOM(spec *Spec, args [][]byte, cl *Client) bool {
	switch {
	case spec.Script == ScriptEval || spec.Script == ScriptEvalSHA:
		return e.evalDenyOOM(spec, args)
	case spec.Script == ScriptFcall:
		if fn := e.scripts().fns().funcs[strings.ToLower(string(args[1]))]; fn != nil {
			return scriptDenyOOM(fn.Flags)
		}
	case spec.Txn == TxnExec:
		for _, q := range cl.multi.queue {
			if s := LookupArgs(q); s != nil && s.CheckArity(len(q)) && e.denyOOM(s, q, cl) {
				return true
			}
		}
	}
	return spec.Flags&DenyOOM != 0
}

// evalDenyOOM is evalGetCommandFlags: the flags of the script cached
// under the SHA (EVALSHA) or of the body's shebang (EVAL); a script
// without a shebang keeps EVAL's flags, which do not deny.
func (e *Engine) evalDenyOOM(spec *Spec, args [][]byte) bool {
	bySHA := spec.Script == ScriptEvalSHA
	if bySHA && len(args[1]) != 40 {
		return false
	}
	s := e.scripts()
	var ent *scriptcache.Entry
	if bySHA {
		ent = s.cache.GetBytes(args[1])
	} else {
		ent = s.cache.Get(scriptcache.SHA1Hex(args[1]))
	}
	var flags uint64
	switch {
	case ent != nil:
		flags = ent.Script.Flags
	case bySHA:
		return false
	default:
		f, ok := luaengine.ShebangFlags(args[1])
		if !ok {
			return false
		}
		flags = f
	}
	return scriptDenyOOM(flags)
}

// scriptDenyOOM is scriptFlagsToCmdFlags's CMD_DENYOOM: a script with
// flags denies unless it allows OOM or does not write.
func scriptDenyOOM(flags uint64) bool {
	return flags&luaengine.FlagEvalCompat == 0 && flags&(luaengine.FlagAllowOOM|luaengine.FlagNoWrites) == 0
}

// scriptOOMRefused is scriptPrepareForRun's OOM check, for a script with
// flags reached without the gate refusing it (EXEC holding an EVALSHA
// queued before its script was loaded): it writes the error.
func (c *Ctx) scriptOOMRefused(flags uint64) bool {
	if scriptDenyOOM(flags) && c.E.preCommandOOM() {
		c.Error(ErrScriptOOM)
		return true
	}
	return false
}
