package luaengine

import "github.com/lockkv/lockkv/third_party/yuin/gopher-lua/ast"

// codeWeight is the static weight, in steps (steps.go), of running a
// loop or function body once up to its nested loops and functions (which
// have check points of their own): a step per statement and expression,
// both branches of an if counted, plus what the code can allocate as it
// runs: a table per constructor and a slot per field, a slot per store
// into a table field, a closure per function expression, a boxed number
// per arithmetic operation, and the bytes of string constants it
// concatenates (the concat helper charges the other operands). It is an
// upper bound of the work and allocation between two check points, so a
// loop whose body is large pays for its size on every iteration.
func codeWeight(list []ast.Stmt) int {
	w := 0
	for _, s := range list {
		w += stmtWeight(s)
	}
	return w
}

func stmtWeight(s ast.Stmt) int {
	w := 1
	switch x := s.(type) {
	case *ast.AssignStmt:
		for _, e := range x.Lhs {
			if _, ok := e.(*ast.AttrGetExpr); ok {
				w += weightSlot
			}
		}
		w += exprsWeight(x.Lhs) + exprsWeight(x.Rhs)
	case *ast.LocalAssignStmt:
		w += exprsWeight(x.Exprs)
	case *ast.FuncCallStmt:
		w += exprWeight(x.Expr)
	case *ast.DoBlockStmt:
		w += codeWeight(x.Stmts)
	case *ast.IfStmt:
		w += exprWeight(x.Condition) + codeWeight(x.Then) + codeWeight(x.Else)
	case *ast.NumberForStmt:
		// The bounds are evaluated once; the body has its check point.
		w += exprWeight(x.Init) + exprWeight(x.Limit) + exprWeight(x.Step)
	case *ast.GenericForStmt:
		w += exprsWeight(x.Exprs)
	case *ast.FuncDefStmt:
		w += weightClosure
		if x.Name != nil {
			w += exprWeight(x.Name.Func) + exprWeight(x.Name.Receiver)
		}
	case *ast.ReturnStmt:
		w += exprsWeight(x.Exprs)
	}
	// A while or repeat loop's condition is evaluated with its body, and
	// counted there (loopWeight).
	return w
}

func exprsWeight(list []ast.Expr) int {
	w := 0
	for _, e := range list {
		w += exprWeight(e)
	}
	return w
}

func exprWeight(e ast.Expr) int {
	if e == nil {
		return 0
	}
	w := 1
	switch x := e.(type) {
	case *ast.AttrGetExpr:
		w += exprWeight(x.Object) + exprWeight(x.Key)
	case *ast.TableExpr:
		w += weightTable
		for _, f := range x.Fields {
			w += weightSlot + exprWeight(f.Key) + exprWeight(f.Value)
		}
	case *ast.FuncCallExpr:
		w += exprWeight(x.Func) + exprWeight(x.Receiver) + exprsWeight(x.Args)
	case *ast.LogicalOpExpr:
		w += exprWeight(x.Lhs) + exprWeight(x.Rhs)
	case *ast.RelationalOpExpr:
		w += exprWeight(x.Lhs) + exprWeight(x.Rhs)
	case *ast.ArithmeticOpExpr:
		w += weightNumber + exprWeight(x.Lhs) + exprWeight(x.Rhs)
	case *ast.StringConcatOpExpr:
		w += exprWeight(x.Lhs) + exprWeight(x.Rhs)
		for _, op := range []ast.Expr{x.Lhs, x.Rhs} {
			if s, ok := op.(*ast.StringExpr); ok {
				w += len(s.Value) / stepBytes
			}
		}
	case *ast.UnaryMinusOpExpr:
		w += weightNumber + exprWeight(x.Expr)
	case *ast.UnaryNotOpExpr:
		w += exprWeight(x.Expr)
	case *ast.UnaryLenOpExpr:
		w += exprWeight(x.Expr)
	case *ast.FunctionExpr:
		w += weightClosure
	}
	return w
}

// loopWeight is the weight of one iteration of a while or repeat loop:
// its body and its condition.
func loopWeight(body []ast.Stmt, cond ast.Expr) int {
	return codeWeight(body) + exprWeight(cond)
}
