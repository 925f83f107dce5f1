package luaengine

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The boundary of package lua51 (see its doc), checked on luaengine's
// source: gopher-lua's unexported state is reached there and nowhere
// else, and the rest of luaengine stores into and walks a script's tables
// only through it.

// loadSource parses luaengine's non-test files and type-checks them with
// the export data the go command has for their imports.
func loadSource(t *testing.T) (*token.FileSet, []*ast.File, *types.Info) {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "\t")
		exports[path] = file
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) < 10 {
		t.Fatalf("only %d source files found", len(files))
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	info := &types.Info{
		Uses:       map[*ast.Ident]types.Object{},
		Defs:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check("github.com/lockkv/lockkv/luaengine", fset, files, info); err != nil {
		t.Fatalf("type-checking luaengine: %v", err)
	}
	return fset, files, info
}

// TestUnsafeOnlyInLua51: no file of luaengine outside lua51 imports
// reflect or reaches memory through unsafe (a string's bytes viewed as a
// []byte, unsafe.StringData and unsafe.Slice, is all it may do), nor
// links to unexported symbols.
func TestUnsafeOnlyInLua51(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("go:"+"linkname")) {
			t.Errorf("%s: a linkname directive", name)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		unsafeName := ""
		for _, im := range f.Imports {
			switch strings.Trim(im.Path.Value, `"`) {
			case "reflect":
				t.Errorf("%s imports reflect: gopher-lua's internals are lua51's", name)
			case "unsafe":
				unsafeName = "unsafe"
				if im.Name != nil {
					unsafeName = im.Name.Name
				}
			}
		}
		if unsafeName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == unsafeName && sel.Sel.Name != "StringData" && sel.Sel.Name != "Slice" {
				t.Errorf("%s: unsafe.%s: gopher-lua's internals are lua51's", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// rawStores are the methods that store into a table without its log,
// rawWalks those that walk it in gopher-lua's order.
var (
	rawStores = map[string][]string{
		"LTable": {"RawSet", "RawSetInt", "RawSetString", "RawSetH", "Append", "Insert", "Remove"},
		"LState": {"RawSet", "RawSetInt", "SetTable", "SetField", "SetGlobal"},
	}
	rawWalks = map[string][]string{
		"LTable": {"Next", "ForEach"},
		"LState": {"ForEach"},
	}
)

// rawStoreAllowed lists the functions that may store into tables that
// are not fresh without lua51.Set, and why.
var rawStoreAllowed = map[string]string{
	// The sandbox and the libraries' own tables are built before any
	// script runs, and are read-only to scripts.
	"setup":              "builds the sandbox",
	"installCoroutines":  "builds the coroutine library",
	"coerceNumArgs":      "wraps library functions before any script runs",
	"installStringArith": "builds the string metatable",
	"sealStringIndex":    "builds the table strings are indexed through",
	// KEYS and ARGV are string keys gopher-lua records, never nil.
	"evalArray": "sets KEYS and ARGV in the global table",
	// Scripts never see the FUNCTION environment's own metatable.
	"LoadLibrary": "switches the environment's __index while a library loads",
}

// TestStoresAndWalksGoThroughLua51 checks luaengine's source (lua51
// aside): a raw store (rawStores) is made only into a table the function
// has just made itself (a local assigned only from CreateTable or
// NewTable) or by a function in rawStoreAllowed; a walk in gopher-lua's
// order (rawWalks) is never made. Everything else goes through lua51.Set,
// lua51.ForEach, lua51.Unordered or the Runtime's Next.
func TestStoresAndWalksGoThroughLua51(t *testing.T) {
	fset, files, info := loadSource(t)
	stores := 0
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				recv := luaReceiver(info, sel)
				if recv == "" {
					return true
				}
				where := fmt.Sprintf("%s (%s): %s.%s", fset.Position(call.Pos()), fn.Name.Name, recv, sel.Sel.Name)
				if slices.Contains(rawWalks[recv], sel.Sel.Name) {
					t.Errorf("%s walks a table in gopher-lua's order: use lua51.ForEach, lua51.Unordered or Runtime.Next", where)
				}
				if !slices.Contains(rawStores[recv], sel.Sel.Name) {
					return true
				}
				stores++
				table := sel.X
				if recv == "LState" && len(call.Args) > 0 {
					table = call.Args[0]
				}
				if recv == "LState" && sel.Sel.Name == "SetGlobal" {
					table = nil
				}
				if recv == "LTable" && (sel.Sel.Name == "Insert" || sel.Sel.Name == "Remove" || sel.Sel.Name == "Append") {
					// Never fresh enough: they move keys.
					table = nil
				}
				if table != nil && fresh(info, fn, table) {
					return true
				}
				if _, ok := rawStoreAllowed[fn.Name.Name]; ok {
					return true
				}
				t.Errorf("%s stores into a table it did not just make: use lua51.Set", where)
				return true
			})
		}
	}
	if stores < 50 {
		t.Fatalf("only %d raw stores found: the check no longer sees them", stores)
	}
}

// luaReceiver is "LTable" or "LState" when sel is a method of gopher-lua's
// *LTable or *LState, else "".
func luaReceiver(info *types.Info, sel *ast.SelectorExpr) string {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return ""
	}
	typ := s.Recv()
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	named, ok := typ.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "github.com/lockkv/lockkv/third_party/yuin/gopher-lua" {
		return ""
	}
	switch name := named.Obj().Name(); name {
	case "LTable", "LState":
		return name
	}
	return ""
}

// fresh reports whether e is a local variable of fn assigned only from
// CreateTable or NewTable: a table fn made and fills before any script
// sees it.
func fresh(info *types.Info, fn *ast.FuncDecl, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	obj, ok := info.Uses[id].(*types.Var)
	if !ok || obj.Parent() == nil || obj.Parent() == obj.Pkg().Scope() || obj.Pos() < fn.Body.Pos() || obj.Pos() > fn.Body.End() {
		return false
	}
	assigned := 0
	ok = true
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range x.Lhs {
				lid, isIdent := lhs.(*ast.Ident)
				if !isIdent || (info.Defs[lid] != obj && info.Uses[lid] != obj) {
					continue
				}
				assigned++
				if len(x.Rhs) != len(x.Lhs) || !makesTable(info, x.Rhs[i]) {
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, name := range x.Names {
				if info.Defs[name] != obj {
					continue
				}
				assigned++
				if len(x.Values) != len(x.Names) || !makesTable(info, x.Values[i]) {
					ok = false
				}
			}
		case *ast.UnaryExpr:
			if lid, isIdent := x.X.(*ast.Ident); isIdent && x.Op == token.AND && info.Uses[lid] == obj {
				ok = false // its address escapes
			}
		}
		return true
	})
	return ok && assigned > 0
}

// makesTable reports whether e is a call of LState.CreateTable or
// LState.NewTable.
func makesTable(info *types.Info, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || luaReceiver(info, sel) != "LState" {
		return false
	}
	return sel.Sel.Name == "CreateTable" || sel.Sel.Name == "NewTable"
}
