package engine

import (
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/luaengine"
	"github.com/lockkv/lockkv/scriptcache"
)

// Scripting commands: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT.

var scriptingCommands = []*Spec{
	{Name: "eval", Arity: -3, Flags: NoScript | Stale | SkipMonitor | MayReplicate | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", Flags: KeyRW | KeyAccess | KeyUpdate, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptEval, Fn: evalCmd},
	{Name: "evalsha", Arity: -3, Flags: NoScript | Stale | SkipMonitor | MayReplicate | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Flags: KeyRW | KeyAccess | KeyUpdate, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptEvalSHA, Fn: evalshaCmd},
	{Name: "eval_ro", Arity: -3, Flags: ReadOnly | NoScript | Stale | SkipMonitor | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Notes: "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", Flags: KeyRO | KeyAccess, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptEval, Fn: evalROCmd},
	{Name: "evalsha_ro", Arity: -3, Flags: ReadOnly | NoScript | Stale | SkipMonitor | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptEvalSHA, Fn: evalshaROCmd},
	{Name: "script", Arity: -2, Sub: []*Spec{
		{Name: "debug", Arity: 3, Flags: NoScript, ACL: []string{"scripting"}, Fn: scriptDebug},
		{Name: "exists", Arity: -3, Flags: NoScript, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:agg_logical_and"}, Fn: scriptExists},
		{Name: "flush", Arity: -2, Flags: NoScript, ACL: []string{"scripting"}, Repl: ReplWrite, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Fn: scriptFlush},
		{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"scripting"}, Fn: scriptHelp},
		{Name: "kill", Arity: 2, Flags: NoScript | AllowBusy, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:one_succeeded"}, Fn: scriptKill},
		{Name: "load", Arity: 3, Flags: NoScript | Stale, ACL: []string{"scripting"}, Repl: ReplWrite, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Fn: scriptLoad},
	}},
}

func init() { Register(scriptingCommands) }

// scripting helpers

// scriptingState is the engine's scripting machinery: one interpreter,
// the script cache, and the client scripts run commands as (Redis's
// lua_client).
type scriptingState struct {
	lua   *luaengine.Engine
	cache *scriptcache.Cache
	// local, on a cluster node, holds scripts run here only (EVAL_RO):
	// not replicated, not in snapshots (see evalGeneric).
	local  *scriptcache.Cache
	client *Client
	w      resp.Writer // redis.call replies

	running bool
	dirty   bool // the running script called a write command
	busy    bool // the running script is past busy-reply-threshold
	killed  bool // SCRIPT KILL / FUNCTION KILL asked it to stop
	eval    bool // the running script is an EVAL (not FCALL)
	args    [][]byte
	started int64
	ro      bool
	// oom is the memory state the running script started in
	// (preCommandOOM), allowOOM its allow-oom flag.
	oom      bool
	allowOOM bool
	now      int64
	caller   *Client
	// callerSpec is the running script's command (EVAL, FCALL, ...).
	callerSpec *Spec
	run        luaengine.Run
	callFunc   luaengine.Caller

	functions *functionState

	// nodeLocal: the running script, applied from a cluster's log,
	// called a NodeLocal command; its writes from then on are refused
	// (scriptGate), and nodeLocalState is its interpreter's state then
	// (see settleScript).
	nodeLocal      bool
	nodeLocalState luaengine.State
	// runLua is the running script's interpreter (EVAL's or the
	// functions').
	runLua *luaengine.Engine
}

func (e *Engine) scripts() *scriptingState {
	s := e.scripting
	if s == nil {
		s = &scriptingState{
			lua:   luaengine.New(),
			cache: scriptcache.New(scriptcache.MaxEval),
			// Not registered: it has no connection and takes no client id.
			client: &Client{Authenticated: true},
		}
		s.client.W.Proto = 2
		s.callFunc = func(args [][]byte, proto int) []byte { return e.scriptCall(args, proto) }
		s.run.Call = s.callFunc
		s.run.Exists = func(args [][]byte) bool { return LookupArgs(args) != nil }
		s.run.WhileBusy = func() {
			s.busy = true
			if e.onBusy != nil {
				e.onBusy()
			}
		}
		s.run.Errors = func(reply []byte, ignoreStats bool) {
			if ignoreStats {
				// afterErrorReply's ERR_REPLY_FLAG_NO_STATS_UPDATE:
				// counted when the command replied; the script fails.
				e.failedCall(s.callerSpec)
			} else {
				e.countError(reply)
			}
		}
		s.run.Killed = func() bool { return s.killed }
		s.run.Verbosity = func() int { return scriptVerbosity(e.Config) }
		s.run.Log = func(level int, msg string) {
			if e.scriptLog != nil {
				e.scriptLog(level, msg)
			}
		}
		e.scripting = s
	}
	return s
}

// scriptCall runs one redis.call/redis.pcall command as the script client,
// in the script's database, at the script's time.
func (e *Engine) scriptCall(args [][]byte, proto int) []byte {
	s := e.scripting
	s.w.Reset()
	s.w.Proto = proto
	cl := s.client
	// From callAt's free list: a Ctx literal here escapes (handlers take
	// it through a function value), a heap allocation per redis.call.
	ctx := e.getCtx()
	ctx.E, ctx.C, ctx.W, ctx.DB, ctx.Now, ctx.InScript, ctx.ScriptRO = e, cl, &s.w, e.DBs[cl.DB], s.now, true, s.ro
	// A call() of its own in Redis (scriptCall): counted in INFO
	// commandstats, its error reply counted here (the script passing it
	// on does not count it again), a refused command a rejected call.
	start := monoNanos()
	e.callStart()
	e.execGuarded(ctx, args, 0)
	ctx.countReplyError(&s.w, 0)
	e.countCall(ctx.looked, ctx.Spec != nil, monoNanos()-start)
	if ctx.Spec != nil {
		e.Stats.Commands++
		if ctx.Spec.Flags&Write != 0 {
			s.dirty = true
		}
		if e.repl != nil && e.repl.applying {
			s.w.B = sortForScript(ctx.Spec, s.w.B)
			if ctx.Spec.NodeLocal && !s.nodeLocal {
				// What the script does from here on may differ
				// between the nodes: it writes nothing more.
				s.nodeLocal, s.nodeLocalState = true, s.runLua.State()
			}
		}
	}
	e.putCtx(ctx)
	return s.w.B
}

// LookupArgs is Redis's lookupCommand: the spec of the command args
// names, its subcommand resolved; a container without a known subcommand
// is no command.
func LookupArgs(args [][]byte) *Spec {
	spec := Lookup(args[0])
	if spec != nil && len(spec.Sub) > 0 && len(args) >= 2 {
		return spec.Subcommand(args[1])
	}
	return spec
}

func evalKeys(args [][]byte) []int {
	if len(args) < 3 {
		return nil
	}
	n, ok := redisnum.ParseInt(args[2])
	if !ok || n < 0 || n > int64(len(args)-3) {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 3 + i
	}
	return out
}

// localCache holds the scripts a cluster node ran for reads only
// (evalGeneric), outside the replicated cache.
func (s *scriptingState) localCache() *scriptcache.Cache {
	if s.local == nil {
		s.local = scriptcache.New(scriptcache.MaxEval)
	}
	return s.local
}

// loadScript compiles body and adds it to cache; it writes the error and
// returns nil when the script does not compile.
func (s *scriptingState) loadScript(c *Ctx, cache *scriptcache.Cache, body []byte, sha string, load bool) *scriptcache.Entry {
	if ent := cache.Get(sha); ent != nil {
		if load {
			cache.MakePermanent(ent)
		}
		return ent
	}
	proto, flags, err := luaengine.Compile(body)
	if err != nil {
		c.W.Error(err.Error())
		return nil
	}
	ent := &scriptcache.Entry{Body: string(body)}
	ent.Script.Proto = proto
	ent.Script.Flags = flags
	cache.Add(sha, ent, load)
	return ent
}

func evalCmd(c *Ctx, args [][]byte)      { evalGeneric(c, args, false, false) }
func evalROCmd(c *Ctx, args [][]byte)    { evalGeneric(c, args, false, true) }
func evalshaCmd(c *Ctx, args [][]byte)   { evalGeneric(c, args, true, false) }
func evalshaROCmd(c *Ctx, args [][]byte) { evalGeneric(c, args, true, true) }

// scriptNumKeys parses the numkeys argument (args[2]) of EVAL and FCALL
// and their variants, replying notInt when it is not an integer (EVAL and
// FCALL word that error differently) or the error for a count out of
// range.
func scriptNumKeys(c *Ctx, args [][]byte, notInt string) (int64, bool) {
	numkeys, ok := redisnum.ParseInt(args[2])
	switch {
	case !ok:
		c.Error(notInt)
	case numkeys > int64(len(args)-3):
		c.Error(ErrNumKeysTooBig)
	case numkeys < 0:
		c.Error(ErrNumKeysNegative)
	default:
		return numkeys, true
	}
	return 0, false
}

// evalGeneric is Redis's evalGenericCommand.
func evalGeneric(c *Ctx, args [][]byte, bySHA, ro bool) {
	if bySHA && len(args[1]) != 40 {
		c.Error(ErrNoScript)
		return
	}
	numkeys, ok := scriptNumKeys(c, args, ErrNotInt)
	if !ok {
		return
	}
	s := c.E.scripts()
	// On a cluster node a script that runs here only (EVAL_RO and
	// EVALSHA_RO are reads) must leave the replicated script cache as
	// every node has it: adding to it or reordering its LRU here would
	// make a later EVALSHA evict, find or miss scripts differently on
	// this node. Such scripts are compiled into a cache of this node's.
	cache := s.cache
	local := c.E.repl != nil && !c.Replicated()
	if local {
		cache = s.localCache()
	}
	var ent *scriptcache.Entry
	if bySHA {
		ent = s.cache.GetBytes(args[1])
		if ent == nil && local {
			ent = cache.GetBytes(args[1])
		}
		if ent == nil {
			c.Error(ErrNoScript)
			return
		}
	} else {
		sha := scriptcache.SHA1Hex(args[1])
		if local {
			ent = s.cache.Get(sha)
		}
		if ent == nil {
			ent = s.loadScript(c, cache, args[1], sha, false)
		}
		if ent == nil {
			return
		}
	}
	if !local {
		s.cache.Touch(ent)
	}
	flags := ent.Script.Flags
	if flags&luaengine.FlagEvalCompat == 0 && flags&luaengine.FlagNoWrites == 0 && ro {
		c.Error(ErrScriptROWrite)
		return
	}
	if c.scriptOOMRefused(flags) {
		return
	}
	scriptRO := ro || (flags&luaengine.FlagEvalCompat == 0 && flags&luaengine.FlagNoWrites != 0)
	s.runScript(c, &ent.Script, ent.Script.SHA, args[3:3+numkeys], args[3+numkeys:], scriptRO, true)
}

// runScript is scriptPrepareForRun + luaCallFunction + scriptResetRun.
func (s *scriptingState) runScript(c *Ctx, sc *luaengine.Script, name string, keys, argv [][]byte, ro, eval bool) {
	s.prepare(c, s.lua, name, keys, argv, ro, sc.Flags)
	defer s.finish() // also when a panic unwinds the script (recover.go)
	defer c.keepLuaState(s.lua)()
	defer c.settleScript() // before finish forgets the NodeLocal call
	s.run.Eval = eval
	s.eval = true
	s.lua.Run(sc, &s.run)
}

// keepLuaState, on a cluster node running a script that is not applied
// from the log (EVAL_RO and FCALL_RO on the node that serves them), saves
// the interpreter's state (math.random's generator, cjson's settings) and
// returns what puts it back: every node must hold the same state at the
// same point of the log, and only this node ran this script.
func (c *Ctx) keepLuaState(lua *luaengine.Engine) func() {
	if c.E.repl == nil || c.Replicated() {
		return func() {}
	}
	st := lua.State()
	return func() { lua.SetState(st) }
}

// scriptVerbosity is the redis.log level loglevel lets through.
func scriptVerbosity(c *config.Config) int {
	switch c.String("loglevel") {
	case "debug":
		return luaengine.LogDebug
	case "verbose":
		return luaengine.LogVerbose
	case "warning":
		return luaengine.LogWarning
	}
	return luaengine.LogNotice
}

// prepare is scriptPrepareForRun: the script client takes the caller's
// database, RESP2, and the script's time is the command's; flags are the
// script's (allow-oom).
func (s *scriptingState) prepare(c *Ctx, lua *luaengine.Engine, name string, keys, argv [][]byte, ro bool, flags uint64) {
	s.client.DB = c.C.DB
	s.client.W.Proto = 2
	s.running, s.dirty, s.ro, s.now, s.caller, s.callerSpec = true, false, ro, c.Now, c.C, c.Spec
	s.runLua, s.nodeLocal = lua, false
	s.oom, s.allowOOM = c.E.preCommandOOM(), flags&luaengine.FlagAllowOOM != 0
	c.errCounted = true // the script's result errors: see run.Errors
	run := &s.run
	run.Name = name
	run.Keys, run.Args = keys, argv
	run.Out = c.W
	run.Resp = 2
	run.BusyThreshold = time.Duration(c.E.Config.LuaTimeLimit) * time.Millisecond
	run.MaxSteps, run.Budget = c.stepBudget()
	s.busy, s.killed, s.eval, s.args, s.started = false, false, false, nil, c.Now
}

// stepBudget is the step budget of the Lua code c runs (what is left of
// it, and the whole): on a cluster node applying its log, what the op
// has left of luaengine.ReplicatedMaxSteps (the scripts of a transaction
// share it), so that a script that would run forever fails at the same
// point on every node (and at every replay of the log) instead of
// wedging them all; elsewhere none, and a script is stopped as Redis
// stops it (busy-reply-threshold, SCRIPT KILL).
func (c *Ctx) stepBudget() (left, budget uint64) {
	if !c.Replicated() {
		return 0, 0
	}
	// 1 rather than none once the op spent its budget: a later script
	// fails at its first charge.
	return max(c.E.repl.stepsLeft, 1), luaengine.ReplicatedMaxSteps
}

// spendSteps takes what lua's last run took from the op's budget.
func (c *Ctx) spendSteps(lua *luaengine.Engine) {
	if rs := c.E.repl; rs != nil && rs.applying {
		rs.stepsLeft -= min(lua.Steps(), rs.stepsLeft)
	}
}

// settleScript takes what the script that just ran (EVAL or FCALL) took
// from the op's step budget, also when a panic unwound it. A script applied from the log that called a
// NodeLocal command may have done anything after it, differently on each
// node: it wrote nothing (scriptGate), and what else it left is made the
// same on every node. The interpreter's state goes back to what it was
// at that call (math.random's draws, cjson's settings), and the op's
// budget is spent: the steps it took after the call differ between the
// nodes, and a later script of the same transaction must run out of
// budget at the same point everywhere; a whole budget bounds what the
// rest of the script can cost any node.
func (c *Ctx) settleScript() {
	s := c.E.scripting
	if !s.nodeLocal { // only ever set while applying
		c.spendSteps(s.runLua)
		return
	}
	s.runLua.SetState(s.nodeLocalState)
	c.E.repl.stepsLeft = 0
}

// finish is scriptResetRun.
func (s *scriptingState) finish() {
	run := &s.run
	run.Keys, run.Args, run.Out = nil, nil, nil
	s.running, s.caller, s.callerSpec, s.busy, s.killed, s.args = false, nil, nil, false, false, nil
	s.runLua, s.nodeLocal = nil, false
}

// oomDenies is scriptVerifyOOM for a command that may grow memory: the
// script started over maxmemory, has not written yet and does not allow
// OOM.
func (s *scriptingState) oomDenies() bool {
	return s.oom && !s.dirty && !s.allowOOM
}

func (s *scriptingState) busyError() string {
	if s.eval {
		return ErrBusy
	}
	return ErrBusyFunction
}

// ScriptCaller returns the client whose script is running, or nil. While
// a script is past busy-reply-threshold the server must hold that
// client's further requests until the script returns (Redis's
// protectClient).
func (e *Engine) ScriptCaller() *Client {
	if e.scripting == nil || !e.scripting.running {
		return nil
	}
	return e.scripting.caller
}

// AbortScript stops a running script at its next check point even if it
// wrote (SHUTDOWN while a script is busy).
func (e *Engine) AbortScript() {
	if e.scripting != nil && e.scripting.running {
		e.scripting.killed = true
	}
}

// killScript is Redis's scriptKill.
func (s *scriptingState) kill(c *Ctx, eval bool) {
	if !s.running {
		c.Error(ErrNotBusy)
		return
	}
	if s.dirty || (c.E.repl != nil && c.E.repl.applying) {
		// A replicated script runs on every node: stopping it here alone
		// would leave this node's keyspace different from the others'.
		c.Error(ErrUnkillable)
		return
	}
	if eval && !s.eval {
		c.Error(ErrBusyFunction)
		return
	}
	if !eval && s.eval {
		c.Error(ErrBusy)
		return
	}
	s.killed = true
	c.W.OK()
}

// SCRIPT subcommands

func scriptDebug(c *Ctx, args [][]byte) {
	switch {
	case cstr.EqualFold(args[2], "no"):
		c.W.OK()
	case cstr.EqualFold(args[2], "yes"), cstr.EqualFold(args[2], "sync"):
		c.Error(ErrScriptDebugUnsupported)
	default:
		c.Error(ErrScriptDebugArg)
	}
}

func scriptExists(c *Ctx, args [][]byte) {
	s := c.E.scripts()
	c.W.Array(len(args) - 2)
	for _, sha := range args[2:] {
		if s.cache.GetBytes(sha) != nil {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func scriptFlush(c *Ctx, args [][]byte) {
	if len(args) > 3 || (len(args) == 3 && !cstr.EqualFold(args[2], "sync") && !cstr.EqualFold(args[2], "async")) {
		c.Error(ErrScriptFlushArg)
		return
	}
	s := c.E.scripts()
	s.cache.Flush()
	if s.local != nil {
		s.local.Flush()
	}
	s.lua.Reset()
	c.W.OK()
}

var scriptHelpLines = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

func scriptHelp(c *Ctx, args [][]byte) {
	c.W.Array(len(scriptHelpLines))
	for _, l := range scriptHelpLines {
		c.W.Status(l)
	}
}

func scriptKill(c *Ctx, args [][]byte) { c.E.scripts().kill(c, true) }

func scriptLoad(c *Ctx, args [][]byte) {
	s := c.E.scripts()
	sha := scriptcache.SHA1Hex(args[2])
	if s.loadScript(c, s.cache, args[2], sha, true) == nil {
		return
	}
	c.W.BulkString(sha)
}
