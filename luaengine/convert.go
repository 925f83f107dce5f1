package luaengine

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/resp"
)

// parseReply converts one RESP reply to a Lua value as Redis's
// redisProtocolToLuaType does, returning the value and the bytes left.
// The reply was produced by lockkv itself, so it is trusted.
func (e *Engine) parseReply(b []byte) (lua.LValue, []byte) {
	L := e.L
	if len(b) == 0 {
		return lua.LNil, b
	}
	typ := b[0]
	line, rest := readLine(b[1:])
	switch typ {
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return lua.LNumber(n), rest
	case '$':
		n := atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		return lua.LString(rest[:n]), rest[n+2:]
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		t := errorTable(L, "-"+string(line))
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return t, rest
	case '*':
		n := atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		t := L.CreateTable(n, 0)
		var v lua.LValue
		for i := 1; i <= n; i++ {
			v, rest = e.parseReply(rest)
			t.RawSetInt(i, v)
		}
		return t, rest
	case '%':
		n := atoi(line)
		m := L.CreateTable(0, n)
		var k, v lua.LValue
		for i := 0; i < n; i++ {
			k, rest = e.parseReply(rest)
			v, rest = e.parseReply(rest)
			if k != lua.LNil {
				rawSetLogged(L, m, k, v)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("map", m)
		return t, rest
	case '~':
		n := atoi(line)
		s := L.CreateTable(0, n)
		var k lua.LValue
		for i := 0; i < n; i++ {
			k, rest = e.parseReply(rest)
			if k != lua.LNil {
				rawSetLogged(L, s, k, lua.LTrue)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("set", s)
		return t, rest
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), rest
	case ',':
		f, _ := parseDouble(string(line))
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, rest
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest
	case '=':
		n := atoi(line)
		body := rest[:n]
		rest = rest[n+2:]
		v := L.CreateTable(0, 2)
		if len(body) >= 4 {
			v.RawSetString("string", lua.LString(body[4:]))
			v.RawSetString("format", lua.LString(body[:3]))
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", v)
		return t, rest
	case '|':
		n := atoi(line)
		for i := 0; i < 2*n; i++ {
			_, rest = e.parseReply(rest)
		}
		return e.parseReply(rest)
	case '>':
		n := atoi(line)
		t := L.CreateTable(n, 0)
		var v lua.LValue
		for i := 1; i <= n; i++ {
			v, rest = e.parseReply(rest)
			t.RawSetInt(i, v)
		}
		return t, rest
	}
	return lua.LNil, rest
}

func readLine(b []byte) (line, rest []byte) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:]
		}
	}
	return b, nil
}

func atoi(b []byte) int {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

func parseDouble(s string) (float64, bool) {
	switch s {
	case "inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// writeReply converts a Lua value to a reply as luaReplyToRedisReply does.
// scriptResp is the script's protocol (redis.setresp), which decides how
// booleans are sent; w.Proto is the caller's.
func (e *Engine) writeReply(w *resp.Writer, v lua.LValue, scriptResp int) {
	switch x := v.(type) {
	case lua.LString:
		w.BulkString(string(x))
	case lua.LBool:
		if scriptResp == 2 {
			if x {
				w.Int(1)
			} else {
				w.Null()
			}
		} else {
			w.Bool(bool(x))
		}
	case lua.LNumber:
		w.Int(toInt64(float64(x)))
	case *lua.LTable:
		e.writeTable(w, x, scriptResp)
	default:
		w.Null()
	}
}

func (e *Engine) writeTable(w *resp.Writer, t *lua.LTable, scriptResp int) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		from := len(w.B)
		writeErrorReply(w, string(s))
		e.errorWritten(w, from, lua.LVAsBool(t.RawGetString("ignore_error_stats_update")))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(mapCRLF(string(s)))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(mapCRLF(string(s)))
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, ok1 := vt.RawGetString("format").(lua.LString)
		s, ok2 := vt.RawGetString("string").(lua.LString)
		if ok1 && ok2 {
			w.Verbatim(string(s), string(f))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		w.Map(tableLen(m))
		forEach(m, func(k, v lua.LValue) {
			e.writeReply(w, k, scriptResp)
			e.writeReply(w, v, scriptResp)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		w.Set(tableLen(s))
		forEach(s, func(k, _ lua.LValue) { e.writeReply(w, k, scriptResp) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		e.writeReply(w, t.RawGetInt(i), scriptResp)
	}
}

func mapCRLF(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] == '\r' || b[j] == '\n' {
					b[j] = ' '
				}
			}
			return string(b)
		}
	}
	return s
}
