package luaengine

import (
	"encoding/binary"
	"math"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// cmsgpack is lua-cmsgpack 0.4.0 as Redis ships it: the same choice of
// integer, float and double encodings, array detection, 16-level nesting
// limit (deeper tables encode as nil) and error texts.

const msgpackMaxNesting = 16

func (e *Engine) openCmsgpack(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("pack", L.NewFunction(e.msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return e.msgpackUnpackFull(L, "unpack", 0, 0, L.GetTop()) }))
	// The limit and offset are lua_Integers (luaL_checkinteger,
	// luaL_optinteger); the error messages print them with %d.
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		off := 0
		if L.Get(2) != lua.LNil {
			off = int(toInt64(checkNumber(L, 2, "unpack_one")))
		}
		return e.msgpackUnpackFull(L, "unpack_one", 1, off, 1)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int(toInt64(checkNumber(L, 2, "unpack_limit")))
		off := 0
		if L.Get(3) != lua.LNil {
			off = int(toInt64(checkNumber(L, 3, "unpack_limit")))
		}
		return e.msgpackUnpackFull(L, "unpack_limit", limit, off, 1)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func (e *Engine) msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	if !stackFits(n, n) {
		argError(L, 0, "pack", "Too many arguments for MessagePack pack.")
	}
	enc := msgpackEncoder{L: L, e: e}
	for i := 1; i <= n; i++ {
		enc.encode(L.Get(i), 0)
	}
	e.chargeBytes(L, len(enc.out)-enc.charged)
	L.SetTop(0)
	L.Push(lua.LString(enc.out))
	return 1
}

// msgpackEncoder is mp_encode_lua_type. Nesting stops at
// msgpackMaxNesting, but a table can hold itself many times over, so the
// output is bounded (maxStringLen, a memory error past it).
type msgpackEncoder struct {
	L   *lua.LState
	e   *Engine
	out []byte
	n   int // values converted
	// charged is how much of out was charged for (steps.go).
	charged int
}

func (m *msgpackEncoder) encode(v lua.LValue, level int) {
	if len(m.out) > maxStringLen {
		m.e.memoryError(m.L)
	}
	if m.n++; m.n%encodeTickPeriod == 0 {
		m.e.checkpoint(m.L, encodeTickPeriod+uint64(len(m.out)-m.charged)/stepBytes)
		m.charged = len(m.out)
	}
	out := m.out
	switch x := v.(type) {
	case lua.LString:
		m.e.checkStringLen(m.L, len(out)+len(x))
		m.out = msgpackStr(out, string(x))
		return
	case lua.LBool:
		if x {
			m.out = append(out, 0xc3)
		} else {
			m.out = append(out, 0xc2)
		}
		return
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && f == f && f >= -9.2233720368547758e18 && f < 9.2233720368547758e18 && float64(int64(f)) == f {
			m.out = msgpackInt(out, int64(f))
			return
		}
		if float64(float32(f)) == f {
			out = append(out, 0xca)
			m.out = binary.BigEndian.AppendUint32(out, math.Float32bits(float32(f)))
			return
		}
		out = append(out, 0xcb)
		m.out = binary.BigEndian.AppendUint64(out, math.Float64bits(f))
		return
	case *lua.LTable:
		if level == msgpackMaxNesting {
			m.out = append(out, 0xc0)
			return
		}
		if n, ok := msgpackArrayLen(x); ok {
			switch {
			case n < 16:
				out = append(out, 0x90|byte(n))
			case n <= 0xffff:
				out = append(out, 0xdc)
				out = binary.BigEndian.AppendUint16(out, uint16(n))
			default:
				out = append(out, 0xdd)
				out = binary.BigEndian.AppendUint32(out, uint32(n))
			}
			m.out = out
			for i := 1; i <= n; i++ {
				m.encode(x.RawGetInt(i), level+1)
			}
			return
		}
		n := tableLen(x)
		switch {
		case n < 16:
			out = append(out, 0x80|byte(n))
		case n <= 0xffff:
			out = append(out, 0xde)
			out = binary.BigEndian.AppendUint16(out, uint16(n))
		default:
			out = append(out, 0xdf)
			out = binary.BigEndian.AppendUint32(out, uint32(n))
		}
		m.out = out
		lua51.ForEach(x, func(k, val lua.LValue) {
			m.encode(k, level+1)
			m.encode(val, level+1)
		})
		return
	}
	m.out = append(out, 0xc0)
}

// msgpackArrayLen is table_is_an_array: only positive integer keys, as
// many as the largest one.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0
	ok := true
	lua51.Unordered(t, func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		f := float64(n)
		if !isNum || f < 1 || f != math.Floor(f) {
			ok = false
			return
		}
		count++
		if int(f) > max {
			max = int(f)
		}
	})
	return max, ok && max == count
}

func msgpackStr(out []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		out = append(out, 0xa0|byte(n))
	case n <= 0xff:
		out = append(out, 0xd9, byte(n))
	case n <= 0xffff:
		out = append(out, 0xda)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 0xdb)
		out = binary.BigEndian.AppendUint32(out, uint32(n))
	}
	return append(out, s...)
}

func msgpackInt(out []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(out, byte(n))
		case n <= 0xff:
			return append(out, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(out, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(out, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(out, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(out, byte(int8(n)))
	case n >= -128:
		return append(out, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(out, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(out, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(out, 0xd3), uint64(n))
}

// msgpackCur is the decoder's cursor. Decoding counts the Lua stack
// slots lua-cmsgpack holds (used): every value decoded is checked against
// the C stack, so nesting and the number of values returned stop where
// Redis's stop, with its texts.
type msgpackCur struct {
	e   *Engine
	b   []byte
	err string
}

const (
	msgpackTooMany = "too many return values at once; use unpack_one or unpack_limit instead."
	msgpackInArray = "in function mp_decode_to_lua_array"
)

const (
	msgpackEOF = "Missing bytes in input."
	msgpackBad = "Bad data format in input."
)

func (c *msgpackCur) need(n int) bool {
	if len(c.b) < n {
		c.err = msgpackEOF
		return false
	}
	return true
}

func (c *msgpackCur) decode(L *lua.LState, used int) lua.LValue {
	if !c.need(1) {
		return lua.LNil
	}
	checkStack(L, used, 1, msgpackTooMany)
	t := c.b[0]
	switch {
	case t <= 0x7f:
		c.b = c.b[1:]
		return lua.LNumber(t)
	case t >= 0xe0:
		c.b = c.b[1:]
		return lua.LNumber(int8(t))
	case t&0xe0 == 0xa0:
		return c.str(1, int(t&0x1f))
	case t&0xf0 == 0x90:
		c.b = c.b[1:]
		return c.array(L, int(t&0x0f), used)
	case t&0xf0 == 0x80:
		c.b = c.b[1:]
		return c.mapv(L, int(t&0x0f), used)
	}
	switch t {
	case 0xc0:
		c.b = c.b[1:]
		return lua.LNil
	case 0xc2:
		c.b = c.b[1:]
		return lua.LFalse
	case 0xc3:
		c.b = c.b[1:]
		return lua.LTrue
	case 0xca:
		if !c.need(5) {
			return lua.LNil
		}
		f := math.Float32frombits(binary.BigEndian.Uint32(c.b[1:]))
		c.b = c.b[5:]
		return lua.LNumber(f)
	case 0xcb:
		if !c.need(9) {
			return lua.LNil
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(c.b[1:]))
		c.b = c.b[9:]
		return lua.LNumber(f)
	case 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3:
		size := 1 << ((t - 0xcc) & 3)
		if !c.need(1 + size) {
			return lua.LNil
		}
		p := c.b[1 : 1+size]
		c.b = c.b[1+size:]
		signed := t >= 0xd0
		var u uint64
		for _, x := range p {
			u = u<<8 | uint64(x)
		}
		if !signed && size < 8 {
			return lua.LNumber(float64(u))
		}
		// A uint 64 is pushed as a lua_Integer (int64) too.
		switch size {
		case 1:
			return lua.LNumber(int8(u))
		case 2:
			return lua.LNumber(int16(u))
		case 4:
			return lua.LNumber(int32(u))
		}
		return lua.LNumber(float64(int64(u)))
	case 0xd9:
		if !c.need(2) {
			return lua.LNil
		}
		return c.str(2, int(c.b[1]))
	case 0xda:
		if !c.need(3) {
			return lua.LNil
		}
		return c.str(3, int(binary.BigEndian.Uint16(c.b[1:])))
	case 0xdb:
		if !c.need(5) {
			return lua.LNil
		}
		return c.str(5, int(binary.BigEndian.Uint32(c.b[1:])))
	case 0xdc:
		if !c.need(3) {
			return lua.LNil
		}
		n := int(binary.BigEndian.Uint16(c.b[1:]))
		c.b = c.b[3:]
		return c.array(L, n, used)
	case 0xdd:
		if !c.need(5) {
			return lua.LNil
		}
		n := int(binary.BigEndian.Uint32(c.b[1:]))
		c.b = c.b[5:]
		return c.array(L, n, used)
	case 0xde:
		if !c.need(3) {
			return lua.LNil
		}
		n := int(binary.BigEndian.Uint16(c.b[1:]))
		c.b = c.b[3:]
		return c.mapv(L, n, used)
	case 0xdf:
		if !c.need(5) {
			return lua.LNil
		}
		n := int(binary.BigEndian.Uint32(c.b[1:]))
		c.b = c.b[5:]
		return c.mapv(L, n, used)
	}
	c.err = msgpackBad
	return lua.LNil
}

func (c *msgpackCur) str(hdr, n int) lua.LValue {
	if !c.need(hdr + n) {
		return lua.LNil
	}
	s := lua.LString(c.b[hdr : hdr+n])
	c.b = c.b[hdr+n:]
	return s
}

func (c *msgpackCur) array(L *lua.LState, n, used int) lua.LValue {
	c.e.charge(L, weightTable)
	t := L.CreateTable(0, 0)
	// Stack: the table, then an index and a value per item.
	checkStack(L, used+1, 1, msgpackInArray)
	for i := 1; i <= n; i++ {
		v := c.decode(L, used+2)
		if c.err != "" {
			return lua.LNil
		}
		c.e.charge(L, weightSlot)
		// Stored as lua_settable stores it, nil included (a node).
		lua51.SetInt(L, t, i, v)
	}
	return t
}

func (c *msgpackCur) mapv(L *lua.LState, n, used int) lua.LValue {
	c.e.charge(L, weightTable)
	t := L.CreateTable(0, 0)
	// Stack: the table, a key, a value.
	for i := 0; i < n; i++ {
		k := c.decode(L, used+1)
		if c.err != "" {
			return lua.LNil
		}
		v := c.decode(L, used+2)
		if c.err != "" {
			return lua.LNil
		}
		if k != lua.LNil {
			c.e.charge(L, weightSlot)
			lua51.Set(L, t, k, v)
		}
	}
	return t
}

// msgpackUnpackFull is mp_unpack_full: limit and offset 0 decode every
// value (and return no offset); used is how many stack slots the
// arguments take (unpack_one and unpack_limit pop all but the string).
func (e *Engine) msgpackUnpackFull(L *lua.LState, fname string, limit, offset, used int) int {
	s := checkString(L, 1, fname)
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		luaError(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), len(s))
	}
	if offset > len(s) {
		luaError(L, "Start offset %d greater than input length %d.", int32(offset), len(s))
	}
	if all {
		limit = math.MaxInt32
	}
	L.SetTop(1)
	e.chargeBytes(L, len(s)-offset)
	c := msgpackCur{e: e, b: []byte(s[offset:])}
	cnt := 0
	for len(c.b) > 0 && cnt < limit {
		v := c.decode(L, used+cnt)
		if c.err != "" {
			luaError(L, "%s", c.err)
		}
		L.Push(v)
		cnt++
	}
	if !all {
		checkStack(L, 1+cnt, 1, "in function mp_unpack_full")
		next := len(s) - len(c.b)
		if len(c.b) == 0 {
			next = -1
		}
		L.Insert(lua.LNumber(next), 2)
		cnt++
	}
	return cnt
}
