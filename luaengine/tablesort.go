package luaengine

import (
	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// tableSort is Lua 5.1's table.sort (ltablib.c's auxsort): the same
// quicksort over t[1..#t] with raw reads and writes, so the same order
// comes out for order functions that are not strict orders, the same
// elements reach the order function, and an inconsistent one raises
// "invalid order function for sorting" where Lua's does. gopher-lua's
// sorted only its array part with Go's sort.
func tableSort(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argError(L, 1, "sort", "table expected, got "+typeName(L, 1))
	}
	var fn *lua.LFunction
	if v := L.Get(2); v != lua.LNil {
		if fn, ok = v.(*lua.LFunction); !ok {
			argError(L, 2, "sort", "function expected, got "+typeName(L, 2))
		}
	}
	s := sorter{L: L, t: t, fn: fn}
	s.auxsort(1, int32(lua51.Len(t)))
	return 0
}

type sorter struct {
	L  *lua.LState
	t  *lua.LTable
	fn *lua.LFunction
}

func (s *sorter) get(i int32) lua.LValue { return s.t.RawGetInt(int(i)) }

func (s *sorter) set(i int32, v lua.LValue) {
	lua51.Set(s.L, s.t, lua.LNumber(i), v)
}

// less is sort_comp: the order function's answer, or a < b.
func (s *sorter) less(a, b lua.LValue) bool {
	if s.fn == nil {
		return lessThan(s.L, a, b)
	}
	s.L.Push(s.fn)
	s.L.Push(a)
	s.L.Push(b)
	s.L.Call(2, 1)
	r := lua.LVAsBool(s.L.Get(-1))
	s.L.Pop(1)
	return r
}

func (s *sorter) swap(i, j int32) {
	a, b := s.get(i), s.get(j)
	s.set(i, b)
	s.set(j, a)
}

func (s *sorter) invalid() {
	luaError(s.L, "invalid order function for sorting")
}

// auxsort sorts t[l..u], recursing into the smaller part only (so the
// depth is at most log2 of the length). The indexes are C ints.
func (s *sorter) auxsort(l, u int32) {
	for l < u {
		// Sort a[l], a[(l+u)/2] and a[u].
		if s.less(s.get(u), s.get(l)) {
			s.swap(l, u)
		}
		if u-l == 1 {
			break
		}
		i := int32((int64(l) + int64(u)) / 2)
		if s.less(s.get(i), s.get(l)) {
			s.swap(i, l)
		} else if s.less(s.get(u), s.get(i)) {
			s.swap(i, u)
		}
		if u-l == 2 {
			break
		}
		p := s.get(i) // the pivot, moved to a[u-1]
		s.swap(i, u-1)
		i, j := l, u-1
		for {
			// Repeat ++i until a[i] >= P.
			for i++; s.less(s.get(i), p); i++ {
				if i > u {
					s.invalid()
				}
			}
			// Repeat --j until a[j] <= P.
			for j--; s.less(p, s.get(j)); j-- {
				if j < l {
					s.invalid()
				}
			}
			if j < i {
				break
			}
			s.swap(i, j)
		}
		s.swap(u-1, i)
		// Recurse into the smaller half, loop on the larger.
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		s.auxsort(j, i)
	}
}

// lessThan is lua_lessthan called from a C function: numbers and strings
// compared as Lua compares them, __lt for others, and the error without a
// position (luaG_ordererror, no Lua function running).
func lessThan(L *lua.LState, a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		if y, ok := b.(lua.LNumber); ok {
			return x < y
		}
	case lua.LString:
		if y, ok := b.(lua.LString); ok {
			return x < y
		}
	}
	ta, tb := a.Type().String(), b.Type().String()
	if ta == tb {
		if mt := L.GetMetaField(a, "__lt"); mt != lua.LNil && mt == L.GetMetaField(b, "__lt") {
			return L.LessThan(a, b)
		}
		L.Error(lua.LString("attempt to compare two "+ta+" values"), 0)
	}
	L.Error(lua.LString("attempt to compare "+ta+" with "+tb), 0)
	return false
}
