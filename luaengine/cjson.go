package luaengine

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// cjson is lua-cjson 2.1.0 as Redis ships it: the same number format
// ("%.14g"), escapes ("/" becomes "\/"), array detection, sparse-array
// rule, error texts and cjson.null.

// cjsonNullTag marks cjson.null, which is Lua's NULL light userdata in
// Redis: tostring shows it as "userdata: (nil)".
var cjsonNullTag = new(struct{ byte })

type cjsonConfig struct {
	sparseConvert     bool
	sparseRatio       int
	sparseSafe        int
	encodeMaxDepth    int
	decodeMaxDepth    int
	precision         int
	encodeInvalid     bool
	decodeInvalid     bool
	encodeKeepBuf     bool
	encodeInvalidNull bool // encode_invalid_numbers "null"
}

func defaultCjsonConfig() *cjsonConfig {
	return &cjsonConfig{sparseRatio: 2, sparseSafe: 10, encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		precision: 14, decodeInvalid: true, encodeKeepBuf: true}
}

// openCjson builds a cjson table whose settings are cfg.
func (e *Engine) openCjson(L *lua.LState, cfg *cjsonConfig) *lua.LTable {
	null := L.NewUserData()
	null.Value = cjsonNullTag
	t := L.CreateTable(0, 16)
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "encode", "expected 1 argument")
		}
		enc := cjsonEncoder{L: L, e: e, cfg: cfg, null: null}
		enc.value(L.Get(1), 0, 1)
		e.chargeBytes(L, len(enc.out)-enc.charged)
		L.Push(lua.LString(enc.out))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "decode", "expected 1 argument")
		}
		s := checkString(L, 1, "decode")
		if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
			luaError(L, "JSON parser does not support UTF-16 or UTF-32")
		}
		e.chargeBytes(L, len(s))
		d := cjsonDecoder{L: L, e: e, cfg: cfg, null: null, s: s}
		tok := d.next()
		v := d.value(tok, 0, 1)
		tok = d.next()
		if tok.typ != tEnd {
			d.fail("the end", tok)
		}
		L.Push(v)
		return 1
	}))
	// lua-cjson's json_arg_init, json_integer_option and json_enum_option.
	argInit := func(L *lua.LState, name string, n int) {
		if L.GetTop() > n {
			argError(L, n+1, name, "found too many arguments")
		}
		L.SetTop(n) // missing arguments are nil
	}
	intOption := func(L *lua.LState, name string, i int, p *int, lo, hi int) {
		if L.Get(i) != lua.LNil {
			v := int(int32(toInt64(checkNumber(L, i, name)))) // an int from luaL_checkinteger
			if v < lo || v > hi {
				// lua-cjson names argument 1 whichever it checks.
				argError(L, 1, name, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
			}
			*p = v
		}
		L.Push(lua.LNumber(*p))
	}
	onOff := []string{"off", "on"}
	enumOption := func(L *lua.LState, name string, i int, p *int, options []string) {
		if v := L.Get(i); v != lua.LNil {
			if b, ok := v.(lua.LBool); ok {
				*p = 0
				if b {
					*p = 1
				}
			} else {
				o := checkString(L, i, name)
				k := slices.Index(options, o)
				if k < 0 {
					argError(L, i, name, "invalid option '"+o+"'")
				}
				*p = k
			}
		}
		if *p <= 1 {
			L.Push(lua.LBool(*p == 1))
		} else {
			L.Push(lua.LString(options[*p]))
		}
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	intOpt := func(name string, p *int, lo, hi int) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			argInit(L, name, 1)
			intOption(L, name, 1, p, lo, hi)
			return 1
		}))
	}
	intOpt("encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	intOpt("decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	intOpt("encode_number_precision", &cfg.precision, 1, 14)
	boolOpt := func(name string, p *bool) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			argInit(L, name, 1)
			v := b2i(*p)
			enumOption(L, name, 1, &v, onOff)
			*p = v == 1
			return 1
		}))
	}
	boolOpt("encode_keep_buffer", &cfg.encodeKeepBuf)
	boolOpt("decode_invalid_numbers", &cfg.decodeInvalid)
	t.RawSetString("encode_invalid_numbers", L.NewFunction(func(L *lua.LState) int {
		argInit(L, "encode_invalid_numbers", 1)
		v := b2i(cfg.encodeInvalid)
		if cfg.encodeInvalidNull {
			v = 2
		}
		enumOption(L, "encode_invalid_numbers", 1, &v, []string{"off", "on", "null"})
		cfg.encodeInvalid, cfg.encodeInvalidNull = v == 1, v == 2
		return 1
	}))
	t.RawSetString("encode_sparse_array", L.NewFunction(func(L *lua.LState) int {
		argInit(L, "encode_sparse_array", 3)
		v := b2i(cfg.sparseConvert)
		enumOption(L, "encode_sparse_array", 1, &v, onOff)
		cfg.sparseConvert = v == 1
		intOption(L, "encode_sparse_array", 2, &cfg.sparseRatio, 0, math.MaxInt32)
		intOption(L, "encode_sparse_array", 3, &cfg.sparseSafe, 0, math.MaxInt32)
		return 3
	}))
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(e.openCjson(L, defaultCjsonConfig()))
		return 1
	}))
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// cjsonEncoder is json_append_data. It counts the Lua stack slots
// lua-cjson holds (used): a table needs 3 free, an array item takes 1
// and an object's key and value 2, so nesting stops where Redis's does
// however high encode_max_depth is set. A table can hold itself many
// times over, so the output is bounded too (maxStringLen, a memory
// error past it).
type cjsonEncoder struct {
	L    *lua.LState
	e    *Engine
	n    int // values converted
	cfg  *cjsonConfig
	null *lua.LUserData
	out  []byte
	// charged is how much of out was charged for (steps.go).
	charged int
}

func (e *cjsonEncoder) number(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch {
		case e.cfg.encodeInvalidNull:
			e.out = append(e.out, "null"...)
		case !e.cfg.encodeInvalid:
			luaError(e.L, "Cannot serialise number: must not be NaN or Inf")
		case math.IsNaN(f):
			e.out = append(e.out, "nan"...) // never "-nan"
		default:
			e.out = lua51.AppendNumber(e.out, f) // "%.14g": inf, -inf
		}
		return
	}
	if f == 0 && math.Signbit(f) {
		e.out = append(e.out, "-0"...)
		return
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 && e.cfg.precision == 14 {
		e.out = strconv.AppendInt(e.out, int64(f), 10)
		return
	}
	e.out = strconv.AppendFloat(e.out, f, 'g', e.cfg.precision, 64)
}

var cjsonEscapes = func() [256]string {
	var t [256]string
	for c := 0; c < 0x20; c++ {
		t[c] = "\\u00" + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
	}
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = "\\b", "\\f", "\\n", "\\r", "\\t"
	t['"'], t['\\'], t['/'] = "\\\"", "\\\\", "\\/"
	t[0x7f] = "\\u007f"
	return t
}()

func (e *cjsonEncoder) str(s string) {
	e.out = append(e.out, '"')
	for i := 0; i < len(s); i++ {
		if esc := cjsonEscapes[s[i]]; esc != "" {
			e.out = append(e.out, esc...)
		} else {
			e.out = append(e.out, s[i])
		}
	}
	e.out = append(e.out, '"')
}

// arrayLength is lua_array_length: -1 when t is not an array, else its
// highest index; excessively sparse arrays are refused.
func (e *cjsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0, 0
	bad := false
	lua51.Unordered(t, func(k, _ lua.LValue) {
		if bad {
			return
		}
		if n, ok := k.(lua.LNumber); ok {
			f := float64(n)
			if f == math.Floor(f) && f >= 1 {
				if int(f) > max {
					max = int(f)
				}
				items++
				return
			}
		}
		bad = true
	})
	if bad {
		return -1
	}
	// A ratio of 0 allows any sparseness; items*ratio is C int arithmetic.
	if e.cfg.sparseRatio > 0 && int32(max) > int32(items)*int32(e.cfg.sparseRatio) && max > e.cfg.sparseSafe {
		if !e.cfg.sparseConvert {
			luaError(e.L, "Cannot serialise table: excessively sparse array")
		}
		return -1
	}
	return max
}

func (e *cjsonEncoder) value(v lua.LValue, depth, used int) {
	if len(e.out) > maxStringLen {
		e.e.memoryError(e.L)
	}
	if e.n++; e.n%encodeTickPeriod == 0 {
		e.e.checkpoint(e.L, encodeTickPeriod+uint64(len(e.out)-e.charged)/stepBytes)
		e.charged = len(e.out)
	}
	switch x := v.(type) {
	case lua.LString:
		e.e.checkStringLen(e.L, len(e.out)+len(x))
		e.str(string(x))
	case lua.LNumber:
		e.number(float64(x))
	case lua.LBool:
		if x {
			e.out = append(e.out, "true"...)
		} else {
			e.out = append(e.out, "false"...)
		}
	case *lua.LNilType:
		e.out = append(e.out, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth || !stackFits(used, 3) {
			luaError(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		n := e.arrayLength(x)
		if n > 0 {
			e.out = append(e.out, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.out = append(e.out, ',')
				}
				e.value(x.RawGetInt(i), depth, used+1)
			}
			e.out = append(e.out, ']')
			return
		}
		e.out = append(e.out, '{')
		first := true
		lua51.ForEach(x, func(k, val lua.LValue) {
			if !first {
				e.out = append(e.out, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LString:
				e.str(string(kk))
			case lua.LNumber:
				e.out = append(e.out, '"')
				e.number(float64(kk))
				e.out = append(e.out, '"')
			default:
				luaError(e.L, "Cannot serialise %s: table key must be a number or string", k.Type().String())
			}
			e.out = append(e.out, ':')
			e.value(val, depth, used+2)
		})
		e.out = append(e.out, '}')
	default:
		if ud, ok := v.(*lua.LUserData); ok && ud == e.null {
			e.out = append(e.out, "null"...)
			return
		}
		luaError(e.L, "Cannot serialise %s: type not supported", v.Type().String())
	}
}

const (
	tObjBegin = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var cjsonTokenNames = []string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

type cjsonToken struct {
	typ   int
	index int
	str   string
	num   float64
	b     bool
}

type cjsonDecoder struct {
	L    *lua.LState
	e    *Engine
	cfg  *cjsonConfig
	null *lua.LUserData
	s    string
	pos  int
	buf  []byte
}

func (d *cjsonDecoder) fail(expected string, t cjsonToken) {
	found := cjsonTokenNames[t.typ]
	if t.typ == tError {
		found = t.str
	}
	luaError(d.L, "Expected %s but found %s at character %d", expected, found, t.index+1)
}

func (d *cjsonDecoder) errTok(msg string, index int) cjsonToken {
	return cjsonToken{typ: tError, index: index, str: msg}
}

// invalidNumber is json_is_invalid_number: hex, leading zeros, inf, nan.
func (d *cjsonDecoder) invalidNumber() bool {
	p := d.s[d.pos:]
	if len(p) > 0 && p[0] == '+' {
		return true // numbers starting with + are refused
	}
	if len(p) > 0 && p[0] == '-' {
		p = p[1:]
	}
	if len(p) == 0 {
		return false
	}
	if p[0] == '0' {
		if len(p) > 1 && (p[1]|0x20 == 'x' || (p[1] >= '0' && p[1] <= '9')) {
			return true
		}
		return false
	}
	if p[0] <= '9' {
		return false
	}
	if len(p) >= 3 && (strings.EqualFold(p[:3], "inf") || strings.EqualFold(p[:3], "nan")) { // strncasecmp
		return true
	}
	return false
}

// strtodPrefix parses the longest number prefix of s as strtod does
// (decimal, hex, inf, nan); n is how many bytes it used.
func strtodPrefix(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := len(s) > 0 && s[0] == '-'
	rest := s[i:]
	if len(rest) >= 2 && rest[0] == '0' && rest[1]|0x20 == 'x' {
		j := 2
		for j < len(rest) && isHex(rest[j]) {
			j++
		}
		if j == 2 {
			return 0, i + 1
		}
		v, _ := strconv.ParseUint(rest[2:j], 16, 64)
		f := float64(v)
		if neg {
			f = -f
		}
		return f, i + j
	}
	for _, w := range []string{"infinity", "inf", "nan"} {
		if len(rest) >= len(w) && equalFoldASCII(rest[:len(w)], w) {
			f := math.Inf(1)
			if w == "nan" {
				f = math.NaN()
			}
			if neg {
				f = -f
			}
			return f, i + len(w)
		}
	}
	j := 0
	digits := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
		digits++
	}
	if j < len(rest) && rest[j] == '.' {
		j++
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(rest) && rest[j]|0x20 == 'e' {
		k := j + 1
		if k < len(rest) && (rest[k] == '+' || rest[k] == '-') {
			k++
		}
		if k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
			for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, _ := strconv.ParseFloat(s[:i+j], 64)
	return f, i + j
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if a[i]|0x20 != b[i] {
			return false
		}
	}
	return true
}

func (d *cjsonDecoder) next() cjsonToken {
	for d.pos < len(d.s) && (d.s[d.pos] == ' ' || d.s[d.pos] == '\t' || d.s[d.pos] == '\n' || d.s[d.pos] == '\r') {
		d.pos++
	}
	start := d.pos
	if d.pos >= len(d.s) {
		return cjsonToken{typ: tEnd, index: start}
	}
	c := d.s[d.pos]
	switch c {
	case '{':
		d.pos++
		return cjsonToken{typ: tObjBegin, index: start}
	case '}':
		d.pos++
		return cjsonToken{typ: tObjEnd, index: start}
	case '[':
		d.pos++
		return cjsonToken{typ: tArrBegin, index: start}
	case ']':
		d.pos++
		return cjsonToken{typ: tArrEnd, index: start}
	case ':':
		d.pos++
		return cjsonToken{typ: tColon, index: start}
	case ',':
		d.pos++
		return cjsonToken{typ: tComma, index: start}
	case '"':
		return d.stringToken(start)
	}
	if c == '-' || (c >= '0' && c <= '9') {
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			return d.errTok("invalid number", start)
		}
		return d.numberToken(start)
	}
	rest := d.s[d.pos:]
	switch {
	case len(rest) >= 4 && rest[:4] == "true":
		d.pos += 4
		return cjsonToken{typ: tBoolean, index: start, b: true}
	case len(rest) >= 5 && rest[:5] == "false":
		d.pos += 5
		return cjsonToken{typ: tBoolean, index: start}
	case len(rest) >= 4 && rest[:4] == "null":
		d.pos += 4
		return cjsonToken{typ: tNull, index: start}
	}
	if d.cfg.decodeInvalid && d.invalidNumber() {
		return d.numberToken(start)
	}
	return d.errTok("invalid token", start)
}

func (d *cjsonDecoder) numberToken(start int) cjsonToken {
	f, n := strtodPrefix(d.s[d.pos:])
	if n == 0 {
		return d.errTok("invalid number", start)
	}
	d.pos += n
	return cjsonToken{typ: tNumber, index: start, num: f}
}

func hexVal(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(v), err == nil
}

func (d *cjsonDecoder) stringToken(start int) cjsonToken {
	d.pos++
	b := d.buf[:0]
	for {
		if d.pos >= len(d.s) {
			return d.errTok("unexpected end of string", d.pos)
		}
		c := d.s[d.pos]
		if c == '"' {
			break
		}
		if c != '\\' {
			b = append(b, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.s) {
			return d.errTok("unexpected end of string", d.pos+1)
		}
		switch e := d.s[d.pos+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hexVal(d.s[d.pos+2:])
			if !ok {
				return d.errTok("invalid unicode escape code", d.pos)
			}
			adv := 6
			if r >= 0xD800 && r <= 0xDBFF {
				if d.pos+7 >= len(d.s) || d.s[d.pos+6] != '\\' || d.s[d.pos+7] != 'u' {
					return d.errTok("invalid unicode escape code", d.pos)
				}
				lo, ok := hexVal(d.s[d.pos+8:])
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return d.errTok("invalid unicode escape code", d.pos)
				}
				r = ((r-0xD800)<<10 | (lo - 0xDC00)) + 0x10000
				adv = 12
			} else if r >= 0xDC00 && r <= 0xDFFF {
				return d.errTok("invalid unicode escape code", d.pos)
			}
			b = utf8.AppendRune(b, r)
			d.pos += adv
			continue
		default:
			return d.errTok("invalid escape code", d.pos)
		}
		d.pos += 2
	}
	d.pos++
	d.buf = b
	return cjsonToken{typ: tString, index: start, str: string(b)}
}

// descend is json_decode_descend: the nesting must stay within
// decode_max_depth, and the Lua stack must have slots free for the table
// (used counts those lua-cjson holds: a table and, in an object, a key).
func (d *cjsonDecoder) descend(depth, used, slots int) {
	if depth > d.cfg.decodeMaxDepth || !stackFits(used, slots) {
		luaError(d.L, "Found too many nested data structures (%d) at character %d", depth, d.pos)
	}
}

func (d *cjsonDecoder) value(tok cjsonToken, depth, used int) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.null
	case tObjBegin:
		depth++
		d.descend(depth, used, 3)
		d.e.charge(d.L, weightTable)
		t := d.L.CreateTable(0, 0)
		tok = d.next()
		if tok.typ == tObjEnd {
			return t
		}
		for {
			if tok.typ != tString {
				d.fail("object key string", tok)
			}
			key := tok.str
			tok = d.next()
			if tok.typ != tColon {
				d.fail("colon", tok)
			}
			v := d.value(d.next(), depth, used+2)
			d.e.charge(d.L, weightSlot)
			t.RawSetString(key, v)
			tok = d.next()
			if tok.typ == tObjEnd {
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or object end", tok)
			}
			tok = d.next()
		}
	case tArrBegin:
		depth++
		d.descend(depth, used, 2)
		d.e.charge(d.L, weightTable)
		t := d.L.CreateTable(0, 0)
		tok = d.next()
		if tok.typ == tArrEnd {
			return t
		}
		for i := 1; ; i++ {
			d.e.charge(d.L, weightSlot)
			t.RawSetInt(i, d.value(tok, depth, used+1))
			tok = d.next()
			if tok.typ == tArrEnd {
				return t
			}
			if tok.typ != tComma {
				d.fail("comma or array end", tok)
			}
			tok = d.next()
		}
	}
	d.fail("value", tok)
	return lua.LNil
}
