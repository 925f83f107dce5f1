package luaengine

import (
	"github.com/yuin/gopher-lua/ast"
)

// rewriteChunk adjusts a parsed script where gopher-lua's semantics differ
// from Lua 5.1's.
func rewriteChunk(chunk []ast.Stmt) {}
