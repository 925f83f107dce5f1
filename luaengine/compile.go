package luaengine

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
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
	m, src := syntaxCheck(src, SourceName, true)
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
// differs from Lua 5.1 (see rewrite.go).
func compileChunk(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, luaSyntaxError(err, name)
	}
	chunk = rewriteBlock(chunk, 1)
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
