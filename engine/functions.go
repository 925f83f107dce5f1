package engine

import (
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
	"github.com/lockkv/lockkv/luaengine"
)

// Function commands: FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL/HELP,
// FCALL, FCALL_RO. Libraries live in their own interpreter, as in Redis.
// FUNCTION DUMP and RESTORE live in functions_dump.go.

var functionCommands = []*Spec{
	{Name: "fcall", Arity: -3, Flags: NoScript | Stale | SkipMonitor | MayReplicate | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", Flags: KeyRW | KeyAccess | KeyUpdate, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptFcall, Fn: fcallCmd},
	{Name: "fcall_ro", Arity: -3, Flags: ReadOnly | NoScript | Stale | SkipMonitor | NoMandatoryKeys, Keys: evalKeys, KeySpecs: []KeySpec{{Notes: "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", Flags: KeyRO | KeyAccess, Pos: 2, Find: FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"scripting"}, Script: ScriptFcall, Fn: fcallROCmd},
	{Name: "function", Arity: -2, Sub: []*Spec{
		{Name: "delete", Arity: 3, Flags: Write | NoScript, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: functionDelete},
		{Name: "flush", Arity: -2, Flags: Write | NoScript, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: functionFlush},
		{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"scripting"}, Fn: functionHelp},
		{Name: "kill", Arity: 2, Flags: NoScript | AllowBusy, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:one_succeeded"}, Fn: functionKill},
		{Name: "list", Arity: -2, Flags: NoScript, ACL: []string{"scripting"}, Tips: []string{"nondeterministic_output_order"}, Fn: functionList},
		{Name: "load", Arity: -3, Flags: Write | DenyOOM | NoScript, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: functionLoad},
		{Name: "stats", Arity: 2, Flags: NoScript | AllowBusy, ACL: []string{"scripting"}, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, NodeLocal: true, Fn: functionStats}, // NodeLocal: the script this node is running
		{Name: "dump", Arity: 2, Flags: NoScript, ACL: []string{"scripting"}, Fn: functionDump},
		{Name: "restore", Arity: -3, Flags: Write | DenyOOM | NoScript, ACL: []string{"scripting"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: functionRestore},
	}},
}

func init() { Register(functionCommands) }

// function helpers

// functionState holds the loaded libraries.
type functionState struct {
	lua   *luaengine.Engine
	libs  map[string]*luaengine.Library // by name (case-sensitive)
	order []*luaengine.Library          // load order, for FUNCTION LIST
	funcs map[string]*luaengine.Function
}

func (s *scriptingState) fns() *functionState {
	if s.functions == nil {
		s.functions = &functionState{
			lua:   luaengine.NewFunctionEngine(s.lua),
			libs:  map[string]*luaengine.Library{},
			funcs: map[string]*luaengine.Function{},
		}
	}
	return s.functions
}

func (f *functionState) remove(lib *luaengine.Library) {
	delete(f.libs, lib.Name)
	for _, fn := range lib.Functions {
		delete(f.funcs, strings.ToLower(fn.Name))
	}
	for i, l := range f.order {
		if l == lib {
			f.order = append(f.order[:i:i], f.order[i+1:]...)
			break
		}
	}
}

func (f *functionState) add(lib *luaengine.Library) {
	f.libs[lib.Name] = lib
	f.order = append(f.order, lib)
	for _, fn := range lib.Functions {
		f.funcs[strings.ToLower(fn.Name)] = fn
	}
}

func fcallCmd(c *Ctx, args [][]byte)   { fcallGeneric(c, args, false) }
func fcallROCmd(c *Ctx, args [][]byte) { fcallGeneric(c, args, true) }

// fcallGeneric is Redis's fcallCommandGeneric.
func fcallGeneric(c *Ctx, args [][]byte, ro bool) {
	s := c.E.scripts()
	fs := s.fns()
	fn := fs.funcs[strings.ToLower(string(args[1]))]
	if fn == nil {
		c.Error(ErrFunctionNotFound)
		return
	}
	numkeys, ok := scriptNumKeys(c, args, ErrBadNumKeys)
	if !ok {
		return
	}
	if fn.Flags&luaengine.FlagNoWrites == 0 && ro {
		c.Error(ErrScriptROWrite)
		return
	}
	if c.scriptOOMRefused(fn.Flags) {
		return
	}
	scriptRO := ro || fn.Flags&luaengine.FlagNoWrites != 0
	s.prepare(c, fs.lua, fn.Name, args[3:3+numkeys], args[3+numkeys:], scriptRO, fn.Flags)
	defer s.finish() // also when a panic unwinds the script (recover.go)
	defer c.keepLuaState(fs.lua)()
	defer c.settleScript() // before finish forgets the NodeLocal call
	s.args = args
	fs.lua.Call(fn, &s.run)
}

func functionLoad(c *Ctx, args [][]byte) {
	replace := false
	pos := 2
	for pos < len(args)-1 {
		if cstr.EqualFold(args[pos], "replace") {
			replace = true
			pos++
			continue
		}
		c.Error(ErrFunctionUnknownOption(args[pos]))
		return
	}
	code := args[pos]
	engine, name, off, errMsg := luaengine.ParseLibraryMeta(code)
	if errMsg != "" {
		c.Error(errMsg)
		return
	}
	if !strings.EqualFold(engine, "lua") {
		c.Error(ErrEngineNotFound(engine))
		return
	}
	if !luaengine.ValidName(name) {
		c.Error(ErrFunctionName)
		return
	}
	fs := c.E.scripts().fns()
	old := fs.libs[name]
	if old != nil && !replace {
		c.Error(ErrLibraryExists(name))
		return
	}
	lib := &luaengine.Library{Name: name, Code: string(code)}
	left, budget := c.stepBudget()
	err := fs.lua.LoadLibrary(lib, code[off:], left, budget)
	c.spendSteps(fs.lua)
	if err != nil {
		c.Error(err.Error())
		return
	}
	for _, fn := range lib.Functions {
		if other := fs.funcs[strings.ToLower(fn.Name)]; other != nil && other.Lib != old {
			c.Error(ErrFunctionExists(fn.Name))
			return
		}
	}
	if old != nil {
		fs.remove(old)
	}
	fs.add(lib)
	c.W.BulkString(name)
}

// loadLibraryCode parses a library's metadata and runs its code, with
// maxSteps left of a step budget (LoadLibrary).
func loadLibraryCode(fs *functionState, code []byte, maxSteps, budget uint64) (*luaengine.Library, string) {
	engine, name, off, errMsg := luaengine.ParseLibraryMeta(code)
	if errMsg != "" {
		return nil, errMsg
	}
	if !strings.EqualFold(engine, "lua") {
		return nil, ErrEngineNotFound(engine)
	}
	if !luaengine.ValidName(name) {
		return nil, ErrFunctionName
	}
	lib := &luaengine.Library{Name: name, Code: string(code)}
	if err := fs.lua.LoadLibrary(lib, code[off:], maxSteps, budget); err != nil {
		return nil, err.Error()
	}
	return lib, ""
}

func functionDelete(c *Ctx, args [][]byte) {
	fs := c.E.scripts().fns()
	lib := fs.libs[string(args[2])]
	if lib == nil {
		c.Error(ErrLibraryNotFound)
		return
	}
	fs.remove(lib)
	c.W.OK()
}

func functionFlush(c *Ctx, args [][]byte) {
	if len(args) > 3 || (len(args) == 3 && !cstr.EqualFold(args[2], "sync") && !cstr.EqualFold(args[2], "async")) {
		c.Error(ErrFunctionFlushArg)
		return
	}
	s := c.E.scripts()
	s.functions = nil
	c.W.OK()
}

func functionList(c *Ctx, args [][]byte) {
	withCode := false
	var pattern []byte
	havePattern := false
	for i := 2; i < len(args); i++ {
		if !withCode && cstr.EqualFold(args[i], "withcode") {
			withCode = true
			continue
		}
		if !havePattern && cstr.EqualFold(args[i], "libraryname") {
			if i >= len(args)-1 {
				c.Error(ErrLibraryNameMissing)
				return
			}
			i++
			pattern, havePattern = args[i], true
			continue
		}
		c.Error(ErrFunctionUnknownArg(args[i]))
		return
	}
	fs := c.E.scripts().fns()
	var libs []*luaengine.Library
	for _, lib := range fs.order {
		if havePattern && !glob.Match(pattern, []byte(lib.Name), true) {
			continue
		}
		libs = append(libs, lib)
	}
	w := c.W
	w.Array(len(libs))
	for _, lib := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(lib.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(lib.Functions))
		for _, fn := range lib.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(fn.Name)
			w.BulkString("description")
			if fn.HasDesc {
				w.BulkString(fn.Description)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := fn.FlagNames()
			w.Set(len(names))
			for _, n := range names {
				w.Status(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(lib.Code)
		}
	}
}

func functionStats(c *Ctx, args [][]byte) {
	s := c.E.scripts()
	fs := s.fns()
	w := c.W
	w.Map(2)
	w.BulkString("running_script")
	if s.running && !s.eval {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(s.run.Name)
		w.BulkString("command")
		w.Array(len(s.args))
		for _, a := range s.args {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(c.Now - s.started)
	} else {
		w.Null()
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(len(fs.libs)))
	w.BulkString("functions_count")
	w.Int(int64(len(fs.funcs)))
}

func functionKill(c *Ctx, args [][]byte) { c.E.scripts().kill(c, false) }

var functionHelpLines = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

func functionHelp(c *Ctx, args [][]byte) {
	c.W.Array(len(functionHelpLines))
	for _, l := range functionHelpLines {
		c.W.Status(l)
	}
}
