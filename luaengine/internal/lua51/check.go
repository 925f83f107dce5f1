package lua51

import (
	"fmt"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Check reports whether t's layout follows from what was done to it,
// that is whether every store into t that gopher-lua does not record went
// through Set (or the rewritten code's helpers): for a table with a log,
// whether the log holds exactly t's live keys, once brought up to date
// with the keys gopher-lua listed since its last event (as any read
// does); for a table without one, whether gopher-lua's records explain
// it: no key deleted after its constructor returned, no hole in its
// array part beyond the constructor's list items. A table with a
// metatable a script set is not followed, and passes.
func Check(t *lua.LTable) error {
	switch mt := t.Metatable.(type) {
	case *lua.LNilType:
	case *lua.LTable:
		if !IsMarker(mt) {
			return nil
		}
	default:
		return nil
	}
	log := tableLogOf(t)
	if log == nil {
		return checkUnlogged(t)
	}
	log.catchUp(t)
	lt := &log.lt
	arr := tableArray(t)
	for i, live := range lt.array {
		if has := i < len(arr) && arr[i] != lua.LNil; has != live {
			return fmt.Errorf("key %d is %s, its log says %s", i+1, liveness(has), liveness(live))
		}
	}
	for _, n := range lt.node {
		if !n.used {
			continue
		}
		if has := t.RawGet(n.key.v) != lua.LNil; has != n.live {
			return fmt.Errorf("key %s is %s, its log says %s", keyText(n.key.v), liveness(has), liveness(n.live))
		}
	}
	var missing lua.LValue
	Unordered(t, func(k, _ lua.LValue) {
		if missing != nil {
			return
		}
		switch k.(type) {
		case lua.LString, lua.LNumber, lua.LBool:
		default:
			if _, ok := log.ranks[k]; !ok {
				missing = k
				return
			}
		}
		if !lt.live(log.key(k)) {
			missing = k
		}
	})
	if missing != nil {
		return fmt.Errorf("key %s is set, its log does not hold it", keyText(missing))
	}
	return nil
}

// checkUnlogged is Check for a table without a log.
func checkUnlogged(t *lua.LTable) error {
	nitems, nkeys := 0, 0
	if m := marker(t); m != nil {
		nitems = int(tableHint(t) >> 32)
		n, _ := m.RawGetInt(4).(lua.LNumber)
		nkeys = int(n)
	}
	for i, k := range tableKeys(t) {
		if originalKey(k) != k {
			return fmt.Errorf("a tombstone for %s in a table without a log", keyText(originalKey(k)))
		}
		if i >= nkeys && t.RawGet(k) == lua.LNil {
			return fmt.Errorf("key %s was deleted without a log", keyText(k))
		}
	}
	for i, v := range tableArray(t) {
		if v == lua.LNil && i >= nitems {
			return fmt.Errorf("key %d is a hole made without a log", i+1)
		}
	}
	return nil
}

func liveness(live bool) string {
	if live {
		return "set"
	}
	return "nil"
}

func keyText(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return k.String()
}
