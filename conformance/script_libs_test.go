package conformance

import (
	"slices"
	"strings"
	"testing"
)

// Edge arguments to the libraries Redis 7.0 builds into its Lua 5.1
// (lua_bit.c, lua_cjson.c, lua_cmsgpack.c, lua_struct.c and Lua's base,
// string, table and math libraries), compared with redis-server. Each
// expression runs under pcall and every value it gives back is passed
// through tostring, so numbers print as Lua prints them and errors come
// back as their text.

// libCall is a script running expr under pcall and returning tostring of
// each of its results.
func libCall(expr string) string {
	return "local r = {} local function f(...) for i = 1, select('#', ...) do r[i] = tostring((select(i, ...))) end end " +
		"f(pcall(function() return " + expr + " end)) return r"
}

// evalExprs runs libCall of each expression on both servers.
func evalExprs(p *Pair, exprs ...string) {
	p.t.Helper()
	for _, e := range exprs {
		p.Do("EVAL", libCall(e), "0")
	}
}

// each returns fn(arg) for every argument, with fn's "%" replaced.
func each(fn string, args ...string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(fn, "%", a)
	}
	return out
}

// edgeNumbers are the arguments every numeric parameter is tried with.
var edgeNumbers = []string{
	"", "nil", "0", "-0", "1", "-1", "0.5", "-0.5", "1.5", "-1.5",
	"2^31-1", "2^31", "-2^31", "-2^31-1", "2^32", "2^32+1", "-2^32", "2^53", "2^53+2", "-2^53", "2^63", "-2^63", "2^64", "1e300", "-1e300",
	"1/0", "-1/0", "0/0", "-(0/0)", "'12'", "' 0x10 '", "'1e2'", "'x'", "''", "{}", "true",
}

// without returns list less the given values.
func without(list []string, drop ...string) []string {
	var out []string
	for _, v := range list {
		if !slices.Contains(drop, v) {
			out = append(out, v)
		}
	}
	return out
}

func TestScriptLibsBit(t *testing.T) {
	p := NewPair(t)
	for _, f := range []string{"tobit", "bnot", "bswap"} {
		evalExprs(p, each("bit."+f+"(%)", edgeNumbers...)...)
	}
	evalExprs(p, each("bit.tohex(%)", edgeNumbers...)...)
	evalExprs(p, each("bit.tohex(0x12345678, %)", edgeNumbers...)...)
	evalExprs(p, each("bit.tohex(-1, %)", "-8", "-9", "9", "8", "-2147483648", "2147483647", "-2147483647", "0")...)
	for _, f := range []string{"lshift", "rshift", "arshift", "rol", "ror"} {
		evalExprs(p, each("bit."+f+"(0x12345678, %)", edgeNumbers...)...)
		evalExprs(p, each("bit."+f+"(%, 4)", edgeNumbers...)...)
	}
	for _, f := range []string{"band", "bor", "bxor"} {
		evalExprs(p, "bit."+f+"()", "bit."+f+"(1)", "bit."+f+"(1, 2, 3, 4)", "bit."+f+"(1, nil)", "bit."+f+"(1, 'x')", "bit."+f+"(2^32+1, -1)")
		evalExprs(p, each("bit."+f+"(0x7fffffff, %)", edgeNumbers...)...)
	}
}

func TestScriptLibsMath(t *testing.T) {
	p := NewPair(t)
	// Go's sin, tan and atan2 are not glibc's: for arguments far from 0
	// (sin(2^53), tan(2^63)) and a few others (atan2(7, 100)) the 14th
	// digit differs. Those arguments are left out (see README).
	for _, f := range []string{"abs", "ceil", "floor", "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "deg", "rad", "frexp", "modf"} {
		args := edgeNumbers
		if f == "sin" || f == "tan" {
			args = without(edgeNumbers, "2^53", "-2^53", "2^63", "-2^63")
		}
		evalExprs(p, each("math."+f+"(%)", args...)...)
	}
	for _, f := range []string{"fmod", "pow", "atan2", "ldexp", "min", "max", "mod"} {
		args := edgeNumbers
		if f == "atan2" {
			args = without(edgeNumbers, "'1e2'")
		}
		evalExprs(p, each("math."+f+"(7, %)", args...)...)
		evalExprs(p, each("math."+f+"(%, 3)", edgeNumbers...)...)
	}
	evalExprs(p, each("math.pow(%)", "0/0, 2", "-(0/0), 2", "0/0, 3", "-(0/0), 3", "0/0, 0", "-8, 1/3", "2, -(0/0)", "-(0/0), -1", "0/0, 0.5")...)
	p.Do("EVAL", "local t = {} for k in pairs(math) do t[#t+1] = k end return t", "0")
	evalExprs(p, "math.min()", "math.max()", "math.min(1)", "math.max(1, 2, 3, 0/0)", "math.min(0/0, 1)", "math.huge", "-math.huge", "math.pi", "type(math.mod)")
	evalExprs(p, each("math.random(%)", edgeNumbers...)...)
	evalExprs(p, each("math.random(1, %)", edgeNumbers...)...)
	evalExprs(p, each("math.random(%, 2^31)", edgeNumbers...)...)
	evalExprs(p, "math.random(1, 2, 3)", "math.random(2, 1)", "math.random(0)", "math.random(-2^31, 2^31-1)", "math.random(2^31-1, 2^31-1)")
	evalExprs(p, each("math.randomseed(%)", edgeNumbers...)...)
}

func TestScriptLibsString(t *testing.T) {
	p := NewPair(t)
	for _, f := range []string{"len", "upper", "lower", "reverse"} {
		evalExprs(p, each("string."+f+"(%)", "", "nil", "''", "'aBc'", "12", "1.5", "1/0", "0/0", "{}", "true")...)
	}
	evalExprs(p, each("string.sub('hello', %)", edgeNumbers...)...)
	evalExprs(p, each("string.sub('hello', 2, %)", edgeNumbers...)...)
	evalExprs(p, each("string.rep('ab', %)", "", "nil", "0", "-1", "0.5", "1.5", "-2^31", "-2^63", "-1/0", "0/0", "'3'", "'x'", "{}")...)
	evalExprs(p, "string.rep('', 2^31)", "string.rep('', 1e300)", "#string.rep('a', 2^31-2^31+1000)")
	evalExprs(p, each("string.char(%)", edgeNumbers...)...)
	evalExprs(p, "string.char()", "string.char(255, 256)", "string.char(65, 66, 67)", "string.char(-0.5)", "string.char(255.9)")
	evalExprs(p, each("string.byte('hello', %)", edgeNumbers...)...)
	for _, f := range []string{"%d", "%i", "%x", "%X", "%o", "%c", "%u", "%e", "%g", "%f", "%5.2f", "%-10d|", "%+d", "% d", "%#x", "%#o", "%q", "%s", "%10.3s|", "%.20f", "%.99f", "%5", "%y", "%", "%%", "%010d", "%.0e", "%G", "%E", "%.3g", "%#g", "%100d", "%1000d", "%.100f"} {
		evalExprs(p, each("string.format('"+f+"', %)", edgeNumbers...)...)
	}
	evalExprs(p, "string.format()", "string.format('%d')", "string.format('%s %s', 1)", "string.format('%q', 'a\\0b\\n\\r\"\\\\')", "string.format('%s', nil)", "string.format('%d', '0x10')")
	evalExprs(p, each("string.find('hello world', 'o', %)", edgeNumbers...)...)
	evalExprs(p, each("string.find('hello world', 'o w', 1, %)", "nil", "true", "false", "0", "''")...)
	evalExprs(p, each("string.match('hello', 'l+', %)", edgeNumbers...)...)
	evalExprs(p, each("string.gsub('hello', 'l', 'L', %)", edgeNumbers...)...)
	evalExprs(p,
		"string.find('abc', '')", "string.find('', '')", "string.find('abc', '', 10)", "string.find('abc', '[a')", "string.find('abc', '%')",
		"string.find('abc', '(')", "string.find('abc', ')')", "string.find('abc', '%b')", "string.find('abc', '%f')", "string.find('abc', '%1')",
		"string.gsub('abc', '', '-')", "string.gsub('abc', 'b', '%2')", "string.gsub('abc', 'b', '%')", "string.gsub('abc', '(b)', '%1%1')",
		"string.gsub('abc', 'b', {b=1.5})", "string.gsub('abc', 'b', {b=true})", "string.gsub('abc', 'b', function() return {} end)",
		"string.gsub('abc', 'b', 1)", "string.gsub('abc', 'b')", "string.gsub('abc', 'b', nil)",
		"string.match('key:123', '(%a+):(%d+)')", "string.match('x', '()')", "string.match('x', '(()')", "string.match('abc', '.-')",
		"string.gmatch('abc')", "string.rep('ab', 3, ',')", "string.format('%5.1s|', 'abc')", "string.format('%-5d|', -3)", "string.format('%.3d', 7)",
		"string.format('%x', -1)", "string.format('%x', 2^32)", "string.format('%d', 2^63)", "string.format('%d', -2^63)", "string.format('%c', 256)", "string.format('%5c|', 0)", "string.format('%-5c|', 0)", "string.format('a%cb', 0/0)", "string.format('%c', -1)",
		"string.format('%s', 1/0)", "string.format('%s', 0/0)", "string.format('%d', 0/0)", "string.format('%f', 0/0)", "string.format('%g', -(0/0))", "string.format('%.14g', 2^53)",
		"string.format('%q', 1/3)", "string.format('%q', 0/0)", "string.format('%5%')", "string.format('%-+ #0d', 5)", "string.format('%-+ #0-d', 5)",
		"string.upper(0/0)", "string.lower(1/0)", "('x'):rep(3)", "(5):rep(2)", "#tostring(12):rep(3)", "string.sub('hello', '2', '3')", "string.sub('hello', 2.7, 3.9)", "string.sub('hello', -2.5)",
		"string.byte('', 1)", "string.char(0, 0)", "string.len('\\0\\0')", "string.find('a.b', '.', 1, true)", "string.find('abc', 'b', -10)", "string.find('abc', 'b', 2^31)",
		"string.match('  x', '^%s*(.-)%s*$')", "string.gsub('hello world', '(o)', '[%1]', 1)", "string.gsub('abc', '.', {a = 'x', b = false})", "string.gsub('abc', '%w', '%0%0')", "select('#', string.gmatch('abc', '.'))",
	)
}

func TestScriptLibsTable(t *testing.T) {
	p := NewPair(t)
	evalExprs(p, each("table.concat({1, 2, 3}, ',', %)", edgeNumbers...)...)
	evalExprs(p, each("table.concat({1, 2, 3}, ',', 1, %)", edgeNumbers...)...)
	evalExprs(p,
		"table.concat({})", "table.concat({1, {}, 3})", "table.concat({1, 2.5, 'x'}, 1)", "table.concat({1, 2}, nil)", "table.concat({1, 2}, {})",
		"table.concat({1, nil, 3}, ',', 1, 3)", "table.concat()", "table.concat('x')",
		"table.insert({}, 1, 2, 3)", "table.insert({})", "table.insert(nil, 1)", "table.insert({}, 'x', 1)", "table.insert({}, 5, 1)", "table.insert({}, -1, 1)",
		"table.insert({}, 2^53, 1)", "table.insert({}, 0/0, 1)",
		"table.remove({})", "table.remove({}, 5)", "table.remove({1,2,3}, 0)", "table.remove({1,2,3}, -1)", "table.remove({1,2,3}, 4)", "table.remove({1,2,3}, 'x')", "table.remove()",
		"table.getn({1, 2})", "table.getn()", "table.maxn({1, 2, [10] = 1, [2.5] = 1, [-1] = 1})", "table.maxn()", "table.setn({}, 1)",
		"table.sort()", "table.sort({3, 1, 2}, 1)", "table.sort({3, 'a', 1})", "table.sort({3, {}, 1})",
		"(function() local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') end)()",
		"(function() local t = {} for i = 1, 100 do t[i] = i % 7 end table.sort(t, function(a, b) return true end) return 1 end)()",
		"(function() local t = {} for i = 1, 100 do t[i] = 100 - i end table.sort(t, function(a, b) return a <= b end) return table.concat(t, ',') end)()",
		"(function() local t = {5, 5, 5, 5} table.sort(t, function(a, b) return true end) return table.concat(t, ',') end)()",
		"(function() local t = {1, 0/0, 3, 0/0, 2} table.sort(t) return table.concat(t, ',') end)()",
		"(function() local t = {3, 1, 2} table.sort(t, function(a, b) error('x') end) return 1 end)()",
		"#{n = 1}", "next({})", "next({}, 1)", "next()", "rawget({}, nil)", "rawset({}, nil, 1)", "rawset({}, 0/0, 1)", "rawequal(1)", "rawequal()",
		"ipairs()", "pairs()", "ipairs(1)", "pairs(nil)",
	)
}

func TestScriptLibsBase(t *testing.T) {
	p := NewPair(t)
	evalExprs(p, each("tostring(%)", without(edgeNumbers, "{}")...)...)
	evalExprs(p, each("tonumber(%)", edgeNumbers...)...)
	evalExprs(p, each("tonumber('10', %)", edgeNumbers...)...)
	evalExprs(p,
		"tonumber('z', 36)", "tonumber('Z', 36)", "tonumber('ff', 16)", "tonumber('0xff', 16)", "tonumber('  12  ')", "tonumber('12a')", "tonumber('1e')",
		"tonumber('0x')", "tonumber('inf')", "tonumber('nan')", "tonumber('1e400')", "tonumber('-0')", "tonumber('ffffffffffffffffff', 16)", "tonumber('-ff', 16)",
		"tonumber('7fffffff', 16)", "tonumber('80000000', 16)", "tonumber('1', 1)", "tonumber('1', 37)", "tonumber(1, 10)", "tonumber(nil)", "tonumber()",
		"tonumber('0x1p4')", "tonumber('.5')", "tonumber('5.')", "tonumber('0x.8')", "tonumber('1 2')", "tonumber('\\t1\\n')",
		"tostring()", "tostring(nil)", "tostring(1e15)", "tostring(1e14)", "tostring(123456789012345678)", "tostring(2^63)", "tostring(0.1)", "tostring(-0.0)",
		"tostring(1e-5)", "tostring(1/3)", "tostring(100)", "tostring(-1e300*1e10)",
		"type()", "type(nil)", "assert()", "assert(false)", "assert(nil, 'msg')", "assert(false, 12)", "assert(1, 2, 3)", "assert(false, {})",
		"error()", "error(nil)", "error('x', 0)", "error('x', 1)", "error('x', 2)", "error('x', 3)", "error('x', -1)", "error(12)", "select(2, pcall(error, {})) == nil",
		"select()", "select('#')", "select(0, 1)", "select(-1, 1, 2)", "select(-2, 1, 2)", "select(-3, 1, 2)", "select(3, 1, 2)", "select('x', 1)", "select(1.5, 1, 2)", "select(2^31, 1)",
		"select(-2^31, 1)", "select(0/0, 1)",
		"unpack()", "unpack({})", "unpack({1, 2}, 2^31-1, 2^31)", "unpack({1, 2}, -2^31, -2^31+1)", "unpack({1, 2, 3}, -1, 1)", "unpack({1, 2, 3}, 2, 1)", "unpack({1,2,3}, 1.5, 2.5)",
		"select('#', unpack({}, 1, 2^31))", "select('#', unpack({}, -2^31, 2^31-1))", "select('#', unpack({}, 1, 8000))", "select('#', unpack({}, 1, 7990))",
		"select(-7990, unpack({}, 1, 7990)) == nil", "select(7990, unpack({}, 1, 7990)) == nil", "select(-7991, unpack({}, 1, 7990))",
		"select('#', select(2, unpack({}, 1, 7990)))", "select('#', unpack({}, 1, 7999))", "select('#', unpack({}, 1, 8001))",
		"(function() local t = {} for i = 1, 100000 do t[i] = i end return select('#', unpack(t)) end)()",
		"(function() local t = {} for i = 1, 100000 do t[i] = i end return select('#', unpack(t, 99000)) end)()",
		"(function() local t = {} for i = 1, 100000 do t[i] = i end return select(-1, unpack(t, 92100)) end)()",
		"select('#', unpack({1, 2, 3}, 2^31 - 8000, 2^31 - 1))", "select('#', unpack({1, 2, 3}, -2^31, -2^31 + 7990))", "select('#', unpack({1, 2, 3}, -2^31, -2^31 + 8100))",
		"select(2^31 - 1, 1)", "select(-2^31 + 1, 1)", "select(2^32 - 1, 1, 2)", "select('#', select(1, unpack({}, 1, 7990)))",
		"type(getmetatable('x'))", "getmetatable()", "setmetatable({}, 1)", "setmetatable(1, {})", "type(setmetatable({}, nil))", "getmetatable(setmetatable({}, {__metatable = 'p'}))",
		"setmetatable(setmetatable({}, {__metatable = 'p'}), {})",
		"collectgarbage('count') > 0", "type(collectgarbage('count'))", "collectgarbage()", "collectgarbage('collect')", "collectgarbage('step')",
		"collectgarbage('stop')", "collectgarbage('restart')", "collectgarbage('setpause', 150)", "collectgarbage('setpause', 200)", "collectgarbage('setstepmul', 300)", "collectgarbage('setstepmul', 200)",
		"collectgarbage('bogus')", "collectgarbage(1)", "collectgarbage('setpause')", "collectgarbage('setpause', 'x')", "type(gcinfo())", "gcinfo() > 0",
		"type(loadstring)", "loadstring('return 1')()", "loadstring('x=')", "loadstring(nil)", "type(load)", "type(print)", "type(dofile)", "type(loadfile)", "type(getfenv)", "type(setfenv)",
		"type(newproxy)", "type(xpcall)", "xpcall()", "xpcall(error)", "xpcall(error, tostring)", "pcall()", "_VERSION", "type(coroutine)", "type(module)", "type(require)",
		"tostring(print)", "#_G", "type(_G._G)", "type(string.gfind)", "type(math.ldexp)", "type(table.foreach)", "table.foreach({1}, print)", "table.foreachi({1}, print)",
	)
}

func TestScriptLibsCjson(t *testing.T) {
	p := NewPair(t)
	evalExprs(p, each("cjson.encode(%)", edgeNumbers...)...)
	evalExprs(p,
		"cjson.encode({1, 2, 3})", "cjson.encode({[1] = 1, [3] = 3})", "cjson.encode({[1] = 1, [11] = 3})", "cjson.encode({[1] = 1, [12] = 3})",
		"cjson.encode({[20] = 1})", "cjson.encode({[1] = 1, [2.5] = 3})", "cjson.encode({[-1] = 1})", "cjson.encode({[0] = 1})", "cjson.encode({a = 1, [1] = 2})",
		"cjson.encode({[true] = 1})", "cjson.encode({[1.5] = 1})", "cjson.encode({x = function() end})", "cjson.encode(cjson.null)", "cjson.encode({cjson.null})",
		"cjson.encode('\\0\\1\\127\\128\\255/\"\\\\')", "cjson.encode(0.1)", "cjson.encode(1e300)", "cjson.encode(-0.0)", "cjson.encode(123456789012345678)",
		"cjson.encode()", "cjson.encode(1, 2)",
		"cjson.encode_sparse_array()", "cjson.encode_sparse_array(true)", "cjson.encode_sparse_array(false)", "cjson.encode_sparse_array('on')", "cjson.encode_sparse_array('x')",
		"cjson.encode_sparse_array(1, 2)", "cjson.encode_sparse_array(nil, -1)", "cjson.encode_sparse_array(nil, 1, -1)", "cjson.encode_sparse_array(nil, 2^31)",
		"cjson.encode_sparse_array(nil, 1.5)", "cjson.encode_sparse_array(nil, 'x')", "cjson.encode_sparse_array(nil, nil, 0)", "cjson.encode_sparse_array(nil, nil, 2^31)",
		"cjson.encode_max_depth()", "cjson.encode_max_depth(0)", "cjson.encode_max_depth(-1)", "cjson.encode_max_depth(1.5)", "cjson.encode_max_depth('x')", "cjson.encode_max_depth(2^31)",
		"cjson.decode_max_depth()", "cjson.decode_max_depth(0)", "cjson.decode_max_depth(2^31)",
		"cjson.encode_number_precision()", "cjson.encode_number_precision(0)", "cjson.encode_number_precision(15)", "cjson.encode_number_precision(14)", "cjson.encode_number_precision(1)", "cjson.encode_number_precision(14.5)",
		"cjson.encode_keep_buffer()", "cjson.encode_keep_buffer(true)", "cjson.encode_keep_buffer('off')", "cjson.encode_keep_buffer('x')",
		"cjson.encode_invalid_numbers()", "cjson.encode_invalid_numbers('null')", "cjson.encode_invalid_numbers('x')", "cjson.encode_invalid_numbers(1)",
		"cjson.decode_invalid_numbers()", "cjson.decode_invalid_numbers('off')", "cjson.decode_invalid_numbers(true)",
		"cjson.decode()", "cjson.decode('')", "cjson.decode(' ')", "cjson.decode('1')", "cjson.decode('[1,]')", "cjson.decode('{\"a\":1,}')", "cjson.decode('[1] x')",
		"cjson.decode('\"\\\\u00e9\"')", "cjson.decode('\"\\\\ud800\"')", "cjson.decode('\"\\\\ud83d\\\\ude00\"')", "cjson.decode('\"\\\\u0000\"')", "cjson.decode('\"\\\\x\"')",
		"cjson.decode('\"a\\nb\"')", "cjson.decode('nan')", "cjson.decode('NaN')", "cjson.decode('inf')", "cjson.decode('-Infinity')", "cjson.decode('0x10')", "cjson.decode('1e400')",
		"cjson.decode('-0')", "cjson.decode('01')", "cjson.decode('1.')", "cjson.decode('.5')", "cjson.decode('+1')", "cjson.decode('tru')", "cjson.decode('null')", "cjson.decode('[null]')[1] == cjson.null",
		"cjson.decode('{\"a\":null}').a == cjson.null", "cjson.decode('{1:2}')", "cjson.decode('[1')", "cjson.decode('{\"a\"}')", "cjson.decode(12)", "cjson.decode({})", "cjson.decode('\"\\\\u12\"')",
		"cjson.decode('123456789012345678901234567890')", "cjson.decode('1e309')", "cjson.decode('-0.0')", "cjson.decode('1E2')", "cjson.decode('[1,2,3')",
		"cjson.decode('\"\\/\"')", "cjson.decode('{\"a\":1,\"a\":2}').a", "type(cjson.decode('[]'))", "type(cjson.decode('{}'))", "cjson.encode(cjson.decode('[]'))", "cjson.encode(cjson.decode('{}'))",
		"cjson.encode({{}, {{}}, {a = {}}})", "cjson.encode({1, 2, {3, {4, nil, 6}}})", "cjson.encode(1e15)", "cjson.encode(1e14)", "cjson.encode(-1e-7)", "cjson.encode(2^63)", "cjson.decode('[1e-400]')[1]", "cjson.decode('\"\\1\"')",
	)
	// Settings last for the interpreter: try each, encode with it, put the default back.
	for _, s := range []string{"cjson.encode_sparse_array(true)", "cjson.encode_sparse_array(false, 0)", "cjson.encode_sparse_array(false, 1)", "cjson.encode_sparse_array(true, 2, 3)", "cjson.encode_sparse_array(1, 1, 1)",
		"cjson.encode_sparse_array('on', 0, 0)", "cjson.encode_number_precision(3)", "cjson.encode_invalid_numbers(true)", "cjson.encode_invalid_numbers('null')", "cjson.encode_keep_buffer(false)"} {
		for _, v := range []string{"{[1] = 1, [3] = 3}", "{[1] = 1, [20] = 3}", "{[4] = 1}", "{[1] = 1, [2] = 2, [5] = 1}", "{1/3, 0/0, 1/0, -1/0}", "{[1]=1,[2]=2,[3]=3,[4]=4,[5]=5,[6]=6,[7]=7,[8]=8,[9]=9,[10]=10,[30]=1}"} {
			p.Do("EVAL", "local ok, e = pcall(function() return "+s+" end) local ok2, r = pcall(cjson.encode, "+v+") "+
				"cjson.encode_sparse_array(false, 2, 10) cjson.encode_number_precision(14) cjson.encode_invalid_numbers(false) cjson.encode_keep_buffer(true) "+
				"return {tostring(ok), tostring(e), tostring(ok2), tostring(r)}", "0")
		}
	}
	for _, s := range []string{"cjson.decode_invalid_numbers(false)", "cjson.decode_invalid_numbers('off')", "cjson.decode_invalid_numbers(true)"} {
		for _, v := range []string{"'nan'", "'[NaN]'", "'inf'", "'-Infinity'", "'0x10'", "'[1,2]'"} {
			p.Do("EVAL", "local ok, e = pcall(function() return "+s+" end) local ok2, r = pcall(cjson.decode, "+v+") cjson.decode_invalid_numbers(true) "+
				"return {tostring(ok), tostring(e), tostring(ok2), type(r) == 'table' and cjson.encode(r) or tostring(r)}", "0")
		}
	}
	p.Do("SCRIPT", "FLUSH")
}

func TestScriptLibsCmsgpack(t *testing.T) {
	p := NewPair(t)
	evalExprs(p, each("cmsgpack.pack(%)", edgeNumbers...)...)
	evalExprs(p, each("cmsgpack.unpack(cmsgpack.pack(%))", without(edgeNumbers, "{}")...)...)
	evalExprs(p, each("cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), %)", edgeNumbers...)...)
	evalExprs(p, each("cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1, %)", edgeNumbers...)...)
	evalExprs(p,
		"cmsgpack.pack()", "cmsgpack.unpack()",
		"cmsgpack.pack(-32, -33, -128, -129, -32768, -32769, -2^31, -2^31-1, 127, 128, 255, 256, 65535, 65536, 2^32-1, 2^32, 2^53, 2^63, 2^64, -2^63, -2^64)",
		"cmsgpack.unpack(cmsgpack.pack(-32, -33, -128, -129, -32768, -32769, -2^31, -2^31-1, 127, 128, 255, 256, 65535, 65536, 2^32-1, 2^32, 2^53, 2^63, 2^64, -2^63, -2^64))",
		"cmsgpack.pack(0.1, 1/3, 1e-300, 3.4e38, 3.5e38, 1/0, -1/0, 0/0, -(0/0))", "cmsgpack.unpack(cmsgpack.pack(0.1, 1/3, 1e-300, 3.4e38, 1/0, 0/0))",
		"cmsgpack.pack({1, 2, nil, 4})", "cmsgpack.pack({nil, 2})", "cmsgpack.pack({[1] = 1, [2] = 2, x = 3})", "cmsgpack.pack(true, false, nil)",
		"cmsgpack.pack(string.rep('x', 31), string.rep('y', 32))", "#cmsgpack.pack(string.rep('x', 65536))", "cmsgpack.unpack('')", "cmsgpack.unpack(1)", "cmsgpack.unpack('\\193')", "cmsgpack.unpack('\\145')", "cmsgpack.unpack('\\218\\0')",
		"cmsgpack.unpack('\\217\\5abc')", "cmsgpack.unpack('\\203\\0\\0\\0\\0\\0\\0\\248\\127')", "cmsgpack.unpack('\\202\\127\\192\\0\\0')", "cmsgpack.unpack('\\202\\255\\192\\0\\0')",
		"cmsgpack.unpack('\\203\\255\\248\\0\\0\\0\\0\\0\\0')", "cmsgpack.unpack('\\203\\127\\248\\0\\0\\0\\0\\0\\0')",
		"cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')", "cmsgpack.unpack('\\211\\128\\0\\0\\0\\0\\0\\0\\0')", "cmsgpack.unpack('\\199\\1\\1x')",
		"cmsgpack.unpack_one()", "cmsgpack.unpack_one('')", "cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)", "cmsgpack.unpack_one(cmsgpack.pack(1, 2), -1)",
		"cmsgpack.unpack_one(cmsgpack.pack(1, 2), 5)", "cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 1, 2)", "cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 1, 3)",
		"cmsgpack.pack({1, 2, [4] = 4})", "cmsgpack.pack({a = 1})", "cmsgpack.pack(function() end)", "cmsgpack.pack(0.5)", "cmsgpack.pack(1e300)", "cmsgpack.pack(2^32)", "cmsgpack.pack(-2^33)",
		"cmsgpack.pack(string.rep('x', 40))", "cmsgpack.pack(string.rep('x', 300))", "cmsgpack.pack(string.rep('x', 70000)):len()",
		"cmsgpack.pack(1.25)", "cmsgpack.pack(-0.0)", "cmsgpack.pack({[1.5] = 1})", "cmsgpack.pack({[0] = 1})",
	)
}

func TestScriptLibsStruct(t *testing.T) {
	p := NewPair(t)
	evalExprs(p, each("struct.pack('i', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.pack('I', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.pack('b', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.pack('d', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.pack('f', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.pack('l', %)", edgeNumbers...)...)
	evalExprs(p, each("struct.unpack('i', struct.pack('i', 1) .. 'abcd', %)", edgeNumbers...)...)
	evalExprs(p,
		"struct.pack()", "struct.pack('')",
		"struct.pack('>i2', 70000)", "struct.pack('<h', -1)", "struct.pack('H', -1)", "struct.pack('B', 256)", "struct.pack('i3', 2^23)", "struct.pack('I3', -1)",
		"struct.pack('!4bi', 1, 2)", "struct.pack('!2bd', 1, 2)", "struct.pack('bxi', 1, 2)", "struct.pack('>d', 0/0)", "struct.pack('>f', 1e300)", "struct.pack('>f', 0/0)",
		"struct.unpack('>i2', '\\255\\254')", "struct.unpack('<I2', '\\255\\254')", "struct.unpack('i3', '\\255\\255\\255')", "struct.unpack('I16', string.rep('\\1', 16))",
		"struct.unpack('f', '\\0\\0\\192\\127')", "struct.unpack('f', '\\0\\0\\192\\255')", "struct.unpack('s', 'ab\\0cd')", "struct.unpack('c0', '')",
		"struct.unpack('!4bi', '\\1\\0\\0\\0\\2\\0\\0\\0')", "struct.size('!4bi')", "struct.size('!8bd')", "struct.size('!3bi')", "struct.size('=')", "struct.unpack('=', '')", "struct.unpack('', 'abc', 5)", "struct.unpack('', 'abc', -1)", "struct.pack('y', 1)", "struct.pack('i17', 1)", "struct.pack('i0', 1)", "struct.pack('i16', 1)", "struct.pack('i8', 2^63)",
		"struct.pack('!3i', 1)", "struct.pack('!i', 1)", "struct.pack('!17i', 1)", "struct.pack('<i>i=i', 1, 2, 3)", "struct.pack('s', 'a\\0b')", "struct.pack('c', 'ab')",
		"struct.pack('c3', 'a')", "struct.pack('c0', 'abc')", "struct.pack('x')", "struct.pack(' i ', 1)", "struct.pack('i', 'x')", "struct.pack('c2', 1)",
		"struct.unpack()", "struct.unpack('i')", "struct.unpack('i', 'ab')", "struct.unpack('s', 'abc')", "struct.unpack('c', 'abc')", "struct.unpack('c2', 'a')",
		"struct.unpack('ic0', struct.pack('i', 2) .. 'ab')", "struct.unpack('ic0', struct.pack('i', -1) .. 'ab')", "struct.unpack('I8', string.rep('\\255', 8))",
		"struct.unpack('i8', string.rep('\\255', 8))", "struct.unpack('i16', string.rep('\\255', 16))", "struct.unpack('d', string.rep('\\255', 8))",
		"struct.unpack('b', 'x', 2^31)", "struct.unpack('b', 'x', 2^31-1)", "struct.unpack('b', 'x', -2^31)", "struct.unpack('b', 'x', 2^32+1)", "struct.unpack('b', 'x', 0)",
		"struct.unpack('b', 'x', -1)", "struct.unpack('b', 'x', 2)", "struct.unpack('b', 'x', 1e300)", "struct.unpack('b', 'x', 0/0)",
		"struct.size()", "struct.size('')", "struct.size('i')", "struct.size('s')", "struct.size('c0')", "struct.size('!4bi')", "struct.size('c2147483646')", "struct.size('c2147483647b')",
		"struct.size('i4i4c2147483640')", "struct.size('xxxx')", "struct.size('c4294967296')", "struct.size('c9223372036854775807')", "struct.size('c18446744073709551616')",
		"struct.unpack('c2147483647', 'x')", "struct.unpack('c2147483648', 'x')", "struct.unpack('c4294967296', 'x')", "struct.unpack('xb', 'x')",
	)
}

func TestScriptLibsResp3Doubles(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	for _, v := range []string{"0/0", "-(0/0)", "1/0", "-1/0", "0", "-0.0", "1.5", "1e300", "1e-300", "0.1", "2^53", "123456789.123"} {
		p.Do("EVAL", "redis.setresp(3) return {double = "+v+"}", "0")
		p.Do("EVAL", "redis.setresp(3) return {map = {a = {double = "+v+"}}}", "0")
	}
	p.Do("HELLO", "2")
	for _, v := range []string{"0/0", "-(0/0)", "1/0", "-1/0", "1.5"} {
		p.Do("EVAL", "redis.setresp(3) return {double = "+v+"}", "0")
	}
}

// A library registering 40,000 functions (100,000 too, when the machine is not busy) loads within FUNCTION LOAD's
// 500 ms on Redis; registering must not be quadratic in their number.
func TestScriptLibsFunctionLoadMany(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", "#!lua name=many\nfor i = 1, 40000 do redis.register_function('f' .. i, function() return i end) end")
	p.Do("FCALL", "f1", "0")
	p.Do("FCALL", "f40000", "0")
	p.Do("FUNCTION", "LOAD", "#!lua name=dup\nfor i = 1, 40000 do redis.register_function('g' .. i, function() return i end) end redis.register_function('g7', function() end)")
	p.Do("FUNCTION", "FLUSH")
}
