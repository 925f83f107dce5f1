package engine

import (
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoNameComparisons: no code of the engine or of the command families
// around it (admin, commands) chooses behaviour by a command's name. Every
// fact about a command is a field of its table entry (Spec), so the check
// type-checks each package's non-test sources and fails on any
// comparison, switch, prefix test or map index whose operand is a Spec's
// Name or FullName() (against anything), and on any EqualFold(args[0],
// ...) (a handler asking which command it serves). Spec literals
// themselves are the table and are allowed, and so is Register, which
// keys the table by name.
func TestNoNameComparisons(t *testing.T) {
	for _, dir := range familyDirs {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range pkg.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		for _, v := range nameComparisons(t, fset, files) {
			t.Error(v)
		}
	}
}

// familyDirs are the packages that hold command handlers.
var familyDirs = []string{".", "../admin", "../commands"}

// TestNameComparisonsFound: the check above finds each kind of comparison
// it is for, and nothing in code that only uses names as data.
func TestNameComparisonsFound(t *testing.T) {
	const src = `package p

import "strings"

type Spec struct{ Name string; parent *Spec }

func (s *Spec) FullName() string { return s.Name }

type Client struct{ Name string }

var tips = map[string][]string{}

func equalFold(a []byte, s string) bool { return string(a) == s }

func bad(s *Spec, args [][]byte) {
	_ = s.Name == "exec"                     // 1
	_ = "touch" != s.FullName()              // 2
	switch s.Name {                          // 3
	case "hset":
	}
	_ = strings.HasPrefix(s.Name, "evalsha") // 4
	_ = tips[s.FullName()]                   // 5
	_ = equalFold(args[0], "sort_ro")        // 6
	_ = s.parent.Name == "client"            // 7
}

func good(s *Spec, c *Client, args [][]byte) {
	_ = c.Name == ""
	_ = "ERR wrong number of arguments for '" + s.FullName() + "'"
	_ = equalFold(args[1], "store")
	_ = []*Spec{{Name: "get"}}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := nameComparisons(t, fset, []*ast.File{f})
	lineOf := func(needle string) int { return strings.Count(src[:strings.Index(src, needle)], "\n") + 1 }
	badFrom, badTo := lineOf("func bad("), lineOf("func good(")
	if len(got) != 7 {
		t.Errorf("found %d, want 7", len(got))
	}
	for _, v := range got {
		if v.pos.Line <= badFrom || v.pos.Line >= badTo {
			t.Errorf("found outside bad(): %s", v)
		}
	}
}

// nameUse is a use of a command's name found by nameComparisons.
type nameUse struct {
	pos  token.Position
	what string
}

func (u nameUse) String() string { return u.pos.String() + ": " + u.what }

// nameComparisons type-checks files as one package and lists every use
// of a Spec's name that chooses behaviour.
func nameComparisons(t *testing.T, fset *token.FileSet, files []*ast.File) []nameUse {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check(files[0].Name.Name, fset, files, info); err != nil {
		t.Fatal(err)
	}
	isSpec := func(typ types.Type) bool {
		if p, ok := typ.(*types.Pointer); ok {
			typ = p.Elem()
		}
		n, ok := typ.(*types.Named)
		return ok && n.Obj().Name() == "Spec"
	}
	// specName reports whether e is s.Name or s.FullName() of a Spec.
	specName := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
			e = call.Fun
			if sel, ok := e.(*ast.SelectorExpr); !ok || sel.Sel.Name != "FullName" {
				return false
			}
		} else if sel, ok := e.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Name" {
			return false
		}
		sel := e.(*ast.SelectorExpr)
		s := info.Selections[sel]
		return s != nil && isSpec(s.Recv())
	}
	var out []nameUse
	report := func(n ast.Node, what string) {
		out = append(out, nameUse{fset.Position(n.Pos()), what})
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "Register" {
				continue // builds the table: names are its keys
			}
			inspectNames(d, info, specName, report)
		}
	}
	return out
}

// inspectNames reports the uses of a command's name in n (see
// nameComparisons).
func inspectNames(n ast.Node, info *types.Info, specName func(ast.Expr) bool, report func(ast.Node, string)) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (specName(n.X) || specName(n.Y)) {
				report(n, "compares a command's name")
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && specName(n.Tag) {
				report(n, "switches on a command's name")
			}
		case *ast.IndexExpr:
			if tv, ok := info.Types[n.X]; ok && specName(n.Index) {
				if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
					report(n, "looks a command's name up in a map")
				}
			}
		case *ast.CallExpr:
			name := ""
			switch fn := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			switch name {
			case "HasPrefix", "HasSuffix", "Contains", "EqualFold", "Equal", "Compare":
				for _, a := range n.Args {
					if specName(a) {
						report(n, name+" on a command's name")
					}
				}
			}
			if strings.EqualFold(name, "EqualFold") && len(n.Args) == 2 && isArgsZero(info, n.Args[0]) {
				report(n, "asks which command the handler serves (EqualFold(args[0], ...))")
			}
		}
		return true
	})
}

// isArgsZero reports whether e is args[0] (the command name as sent).
func isArgsZero(info *types.Info, e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	id, ok := ix.X.(*ast.Ident)
	if !ok || id.Name != "args" {
		return false
	}
	tv, ok := info.Types[ix.Index]
	return ok && tv.Value != nil && constant.Compare(tv.Value, token.EQL, constant.MakeInt64(0))
}
