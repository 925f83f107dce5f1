package luaengine

import (
	"math"
	"strconv"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// smallIntegers holds the Lua numbers of the integer replies commands
// answer most (counts, flags, TTL's -2 and -1) already boxed as Lua
// values: a number made a value otherwise takes a heap allocation, one
// per redis.call answering an integer.
var smallIntegers = func() (v [smallIntegersTop - smallIntegersBase]lua.LValue) {
	for i := range v {
		v[i] = lua.LNumber(i + smallIntegersBase)
	}
	return v
}()

const smallIntegersBase, smallIntegersTop = -2, 1024

// integerValue is n as a Lua number.
func integerValue(n int64) lua.LValue {
	if n >= smallIntegersBase && n < smallIntegersTop {
		return smallIntegers[n-smallIntegersBase]
	}
	return lua.LNumber(n)
}

// parseReply converts one RESP reply to a Lua value as Redis's
// redisProtocolToLuaType does, returning the value and the bytes left.
//
// The reply comes from lockkv itself, but the conversion still checks
// what it reads: a malformed reply, or one nested deeper than the Lua
// stack Redis's conversion would use (used counts its slots, from 0 in
// redis.call; Redis panics where lua_checkstack fails), sets e.replyErr
// and converts to nil, so that no reply can crash the process.
func (e *Engine) parseReply(b []byte, used int) (lua.LValue, []byte) {
	L := e.L
	if len(b) == 0 {
		e.badReply(errReplyMalformed)
		return lua.LNil, nil
	}
	typ := b[0]
	line, rest, ok := readLine(b[1:])
	if !ok {
		e.badReply(errReplyMalformed)
		return lua.LNil, nil
	}
	switch typ {
	case ':':
		n, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil {
			e.badReply(errReplyMalformed)
		}
		return integerValue(n), rest
	case '$':
		n, ok := replyLen(line, rest)
		if !ok {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		if n < 0 {
			return lua.LFalse, rest
		}
		if len(rest) < n+2 {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		return lua.LString(rest[:n]), rest[n+2:]
	case '+':
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		t := errorTable(L, "-"+string(line))
		lua51.Set(L, t, lua.LString("ignore_error_stats_update"), lua.LTrue)
		return t, rest
	case '*', '>':
		n, ok := replyLen(line, rest)
		if !ok {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		if n < 0 {
			return lua.LFalse, rest
		}
		if !e.replyFits(used, 2) {
			return lua.LNil, nil
		}
		e.steps += uint64(n) * weightArraySlot // checked by redisGeneric
		t := L.CreateTable(n, 0)
		var v lua.LValue
		for i := 1; i <= n && e.replyErr == ""; i++ {
			v, rest = e.parseReply(rest, used+2)
			// A RESP3 null is nil, which still takes a slot in Lua
			// (lua_settable): Set logs it.
			lua51.SetInt(L, t, i, v)
		}
		return t, rest
	case '%':
		n, ok := replyLen(line, rest)
		if !ok || n < 0 {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		e.steps += uint64(n) * weightSlot // checked by redisGeneric
		m := L.CreateTable(0, n)
		var k, v lua.LValue
		for i := 0; i < n && e.replyErr == ""; i++ {
			k, rest = e.parseReply(rest, used+3)
			v, rest = e.parseReply(rest, used+4)
			if k != lua.LNil {
				lua51.Set(L, m, k, v)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("map", m)
		return t, rest
	case '~':
		n, ok := replyLen(line, rest)
		if !ok || n < 0 {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		e.steps += uint64(n) * weightSlot // checked by redisGeneric
		s := L.CreateTable(0, n)
		var k lua.LValue
		for i := 0; i < n && e.replyErr == ""; i++ {
			k, rest = e.parseReply(rest, used+3)
			if k != lua.LNil {
				lua51.Set(L, s, k, lua.LTrue)
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
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		f, _ := parseDouble(string(line))
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, rest
	case '(':
		if !e.replyFits(used, 3) {
			return lua.LNil, nil
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest
	case '=':
		n, ok := replyLen(line, rest)
		if !ok || n < 0 || len(rest) < n+2 {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		if !e.replyFits(used, 5) {
			return lua.LNil, nil
		}
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
		// Attributes are skipped; Redis parses them without a Lua state
		// (so without its stack checks), lockkv counts them as a map.
		n, ok := replyLen(line, rest)
		if !ok || n < 0 {
			e.badReply(errReplyMalformed)
			return lua.LNil, nil
		}
		for i := 0; i < 2*n && e.replyErr == ""; i++ {
			_, rest = e.parseReply(rest, used+3)
		}
		if e.replyErr != "" {
			return lua.LNil, nil
		}
		return e.parseReply(rest, used)
	}
	e.badReply(errReplyMalformed)
	return lua.LNil, nil
}

// Errors of parseReply, the text redis.call raises (or redis.pcall
// returns) with: where Redis's conversion runs out of Lua stack it panics
// with the first text.
const (
	errReplyTooDeep   = "lua stack limit reach when parsing redis.call reply"
	errReplyMalformed = "Protocol error: malformed reply from the command"
)

func (e *Engine) badReply(msg string) {
	if e.replyErr == "" {
		e.replyErr = msg
	}
}

// replyFits is the conversion's lua_checkstack.
func (e *Engine) replyFits(used, n int) bool {
	if !stackFits(used, n) {
		e.badReply(errReplyTooDeep)
		return false
	}
	return true
}

// readLine splits b at its first CRLF; ok is false without one.
func readLine(b []byte) (line, rest []byte, ok bool) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:], true
		}
	}
	return nil, nil, false
}

// replyLen reads an aggregate's or a bulk string's length: -1 (null) or
// a count no larger than the bytes left could hold (each element takes at
// least 3), so that a malformed length cannot make the conversion
// allocate for elements that are not there.
func replyLen(line, rest []byte) (int, bool) {
	if len(line) == 2 && line[0] == '-' && line[1] == '1' {
		return -1, true
	}
	if len(line) == 0 || len(line) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range line {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > len(rest) {
		return 0, false
	}
	return n, true
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
//
// used counts the Lua stack slots Redis's conversion holds when it
// reaches v (2 for the script's result: the error handler and the
// result). Each nested table takes more, as lua_rawget and lua_next push
// them; where Redis's lua_checkstack(4) fails the value is replaced by
// "reached lua stack limit", so a table that contains itself ends the
// reply at Redis's depth.
func (e *Engine) writeReply(w *resp.Writer, v lua.LValue, scriptResp, used int) {
	if len(w.B) > e.replyEnd {
		panic(errReplyTooLong)
	}
	if !stackFits(used, 4) {
		from := len(w.B)
		w.Error("ERR reached lua stack limit")
		e.errorWritten(w, from, false)
		return
	}
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
		e.writeTable(w, x, scriptResp, used)
	default:
		w.Null()
	}
}

func (e *Engine) writeTable(w *resp.Writer, t *lua.LTable, scriptResp, used int) {
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
		// Stack: table, map, key, value, and a copy of the key while the
		// key is converted.
		w.Map(tableLen(m))
		lua51.ForEach(m, func(k, v lua.LValue) {
			e.writeReply(w, k, scriptResp, used+4)
			e.writeReply(w, v, scriptResp, used+3)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		// Stack: table, set, key, and its copy.
		w.Set(tableLen(s))
		lua51.ForEach(s, func(k, _ lua.LValue) { e.writeReply(w, k, scriptResp, used+3) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		// Stack: table, element.
		e.writeReply(w, t.RawGetInt(i), scriptResp, used+1)
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

// tableLen counts t's live entries.
func tableLen(t *lua.LTable) int {
	n := 0
	lua51.Unordered(t, func(_, _ lua.LValue) { n++ })
	return n
}
