package luaengine

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
	"github.com/lockkv/lockkv/third_party/yuin/gopher-lua/parse"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Script flags, as Redis names them in a "#!lua flags=..." shebang.
const (
	FlagNoWrites uint64 = 1 << iota
	FlagAllowOOM
	FlagAllowStale
	FlagNoCluster
	// FlagEvalCompat marks a script without a shebang: it runs with the
	// pre-7.0 rules (it may write, flags are ignored).
	FlagEvalCompat
)

var flagNames = []struct {
	name string
	flag uint64
}{
	{"no-writes", FlagNoWrites},
	{"allow-oom", FlagAllowOOM},
	{"allow-stale", FlagAllowStale},
	{"no-cluster", FlagNoCluster},
}

// SourceName is the chunk name Redis compiles scripts under
// ("@user_script"); errors show it without the '@'.
const SourceName = "user_script"

// CompileError is a script that does not compile; Error() is the full
// reply text Redis sends, prefix included.
type CompileError struct{ Msg string }

func (e *CompileError) Error() string { return e.Msg }

// Compile parses an EVAL script the way Redis 7.0's luaCreateFunction
// does: an optional "#!lua" shebang line with flags, then the body as a
// chunk. It returns the chunk's prototype and the script flags.
func Compile(body []byte) (*lua.FunctionProto, uint64, error) {
	flags, skip, err := shebang(body)
	if err != nil {
		return nil, 0, err
	}
	// Redis 7.0 compiles the body (after the shebang line, whose newline
	// stays so that line numbers are the body's) as a chunk of its own.
	src := string(body[skip:])
	m, src := lua51.CheckSyntax(src, SourceName, true, 0)
	if m != "" {
		return nil, 0, &CompileError{"ERR Error compiling script (new function): " + m}
	}
	proto, err := compileChunk(src, SourceName)
	if err != nil {
		return nil, 0, &CompileError{"ERR Error compiling script (new function): " + err.Error()}
	}
	return proto, flags, nil
}

// ShebangFlags returns the flags of an EVAL script's shebang
// (FlagEvalCompat without one) without compiling it, as Redis's
// evalExtractShebangFlags; ok is false for an invalid shebang.
func ShebangFlags(body []byte) (flags uint64, ok bool) {
	flags, _, err := shebang(body)
	return flags, err == nil
}

// shebang parses the "#!lua flags=..." line, returning the flags and the
// offset of the body (the line's newline, which stays so that line
// numbers are the body's).
func shebang(body []byte) (flags uint64, skip int, err error) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return FlagEvalCompat, 0, nil
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return 0, 0, &CompileError{"ERR Invalid script shebang"}
	}
	parts := strings.Split(string(body[:nl]), " ")
	if parts[0] != "#!lua" {
		return 0, 0, &CompileError{"ERR Unexpected engine in script shebang: " + parts[0]}
	}
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, "flags=") {
			return 0, 0, &CompileError{"ERR Unknown lua shebang option: " + p}
		}
		for _, f := range strings.Split(p[len("flags="):], ",") {
			if f == "" {
				continue
			}
			found := false
			for _, fn := range flagNames {
				if fn.name == f {
					flags |= fn.flag
					found = true
				}
			}
			if !found {
				return 0, 0, &CompileError{"ERR Unexpected flag in script shebang: " + f}
			}
		}
	}
	return flags, nl, nil
}

// compileChunk parses and compiles src, rewriting the AST where gopher-lua
// differs from Lua 5.1 (lua51.Rewrite).
func compileChunk(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, luaSyntaxError(err, name)
	}
	chunk = lua51.Rewrite(chunk, 1, loopWeight)
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, luaSyntaxError(err, name)
	}
	// A main chunk has no `arg` table in Lua 5.1 (only functions declared
	// with ... do); gopher-lua would build one on every call.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}

// luaSyntaxError words a gopher-lua parse error like Lua 5.1's
// "chunk:line: message near 'token'".
func luaSyntaxError(err error, name string) error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		line := pe.Pos.Line
		tok := pe.Token
		if line == parse.EOF || tok == "" {
			tok = "<eof>"
			line = pe.Pos.Line
			if line < 0 {
				line = 1
			}
		}
		msg := pe.Message
		if msg == "syntax error" {
			msg = "unexpected symbol"
		}
		return errors.New(name + ":" + strconv.Itoa(line) + ": " + msg + " near '" + tok + "'")
	}
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		return errors.New(name + ":" + strconv.Itoa(ce.Line) + ": " + ce.Message)
	}
	return err
}

// chunkID is luaO_chunkid: how Lua names a chunk in messages, from the
// name it was loaded with ("=name" and "@name" as given, else the source
// text's first line as [string "..."]), within size bytes: MAXSRC (80)
// in syntax errors, LUA_IDSIZE (60) in runtime errors.
func chunkID(name string, size int) string {
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.HasPrefix(name, "="):
		name = name[1:]
		if len(name) > size-1 {
			name = name[:size-1]
		}
		return name
	case strings.HasPrefix(name, "@"):
		name = name[1:]
		if room := size - len(" '...' ") - 1; len(name) > room {
			return "..." + name[len(name)-room:]
		}
		return name
	}
	n := strings.IndexAny(name, "\n\r")
	if n < 0 {
		n = len(name)
	}
	n = min(n, size-len(` [string "..."] `)-1)
	if n < len(name) {
		return `[string "` + name[:n] + `..."]`
	}
	return `[string "` + name + `"]`
}

// Sizes of chunkID's names.
const (
	maxSrc    = 80
	luaIDSize = 60
)

// load compiles a chunk for loadstring and load as a script is compiled
// (Lua 5.1's syntax, the rewrite pass with its check points, the syntax
// levels counted from the C calls under way), under chunkname. It
// returns the function, or the error message.
func (e *Engine) load(L *lua.LState, src, chunkname string) (*lua.LFunction, string) {
	e.charge(L, len(src)*stepsPerByteLoad)
	m, src := lua51.CheckSyntax(src, chunkID(chunkname, maxSrc), true, e.ccalls)
	if m != "" {
		return nil, m
	}
	// Compile errors are worded by the parser (MAXSRC); the chunk's
	// source name is what runtime errors show (LUA_IDSIZE).
	id := chunkID(chunkname, luaIDSize)
	proto, err := compileChunk(src, id)
	if err != nil {
		return nil, strings.Replace(err.Error(), id, chunkID(chunkname, maxSrc), 1)
	}
	if id != chunkname {
		// The error handler reports the name as given (debug.getinfo's
		// source); messages use id.
		if len(e.chunkNames) >= maxChunkNames {
			clear(e.chunkNames)
		}
		e.chunkNames[id] = chunkname
	}
	fn := e.L.NewFunctionFromProto(proto)
	fn.Env = e.env
	return fn, ""
}

// maxChunkNames bounds Engine.chunkNames.
const maxChunkNames = 256

// baseLoadstring is luaB_loadstring.
func (e *Engine) baseLoadstring(L *lua.LState) int {
	s := checkString(L, 1, "loadstring")
	name := s
	if L.Get(2) != lua.LNil {
		name = checkString(L, 2, "loadstring")
	}
	fn, msg := e.load(L, s, name)
	return loadResult(L, fn, msg)
}

// baseLoad is luaB_load: the chunk is read from a function, called until
// it returns nil or "" (each call a nested C call); an error in the
// reader is the result, as the running error handler words it.
func (e *Engine) baseLoad(L *lua.LState) int {
	name := "=(load)"
	if L.Get(2) != lua.LNil {
		name = checkString(L, 2, "load")
	}
	reader, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		argError(L, 1, "load", "function expected, got "+typeName(L, 1))
	}
	var src []byte
	for {
		e.enterC(L)
		L.Push(reader)
		err := L.PCall(0, 1, e.handler)
		e.ccalls--
		if err != nil {
			L.Push(lua.LNil)
			if ae, ok := err.(*lua.ApiError); ok {
				L.Push(ae.Object)
			} else {
				L.Push(lua.LString(err.Error()))
			}
			return 2
		}
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		piece, ok := luaString(v)
		if !ok {
			L.Push(lua.LNil)
			t := errorTable(L, where(L, 1)+"reader function must return a string")
			L.Push(t)
			return 2
		}
		if piece == "" {
			break
		}
		e.checkStringLen(L, len(src)+len(piece))
		src = append(src, piece...)
	}
	fn, msg := e.load(L, string(src), name)
	return loadResult(L, fn, msg)
}

func loadResult(L *lua.LState, fn *lua.LFunction, msg string) int {
	if fn == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(msg))
		return 2
	}
	L.Push(fn)
	return 1
}
