package conformance

import (
	"strings"
	"testing"
)

// The limits of Redis's Lua 5.1 (luaconf.h: LUAI_MAXCSTACK 8000 stack
// slots for a C function, LUAI_MAXCCALLS 200 nested C calls and parser
// levels, LUAI_MAXCALLS 20000 call frames) and of the libraries Redis
// builds in, where each stops and with which text. Every input here once
// crashed or hung lockkv. The limits lockkv adds where Redis runs out of
// memory (512 MB strings and replies) are tested in luaengine.

// evalLines runs each script with EVAL on both servers.
func evalLines(p *Pair, scripts ...string) {
	p.t.Helper()
	for _, s := range scripts {
		p.Do("EVAL", s, "0")
	}
}

// nested returns a script returning tables nested n deep around x.
func nested(n int, x string) string {
	return "local t = " + x + " for i = 1, " + itoa(n) + " do t = {t} end return t"
}

func TestScriptLimitsReply(t *testing.T) {
	p := NewPair(t)
	// Redis's Tcl test "Script return recursive object".
	evalLines(p,
		"local a = {}; local b = {a}; a[1] = b; return a",
		"local t={} t[1]=t return t",
		"local t={} t.map={a=t} return t",
		"redis.setresp(3) local t={} t.map={a=t} return t",
		"local t={} t.set={} t.set[t]=true return t",
		"redis.setresp(3) local t={} t.set={} t.set[1]=true local u={set={[t]=true}} t[1]=u return u",
		"local t={} t[1]={ok='x'} t[2]=t return t",
		nested(7993, "1"), nested(7994, "1"), nested(7995, "1"), nested(7996, "'x'"),
		nested(7994, "{err='E x'}"), nested(7995, "{ok='x'}"),
	)
	p.Do("PING")
	p.Do("HELLO", "3")
	evalLines(p,
		"local t={} t[1]=t return t",
		"redis.setresp(3) local t={} t.map={a=t} return t",
		"redis.setresp(3) local t={} t.set={} t.set[t]=true return t",
	)
	p.Do("HELLO", "2")
}

func TestScriptLimitsStackValues(t *testing.T) {
	p := NewPair(t)
	evalLines(p,
		"return select('#', string.byte(string.rep('a',300000),1,-1))",
		"return select('#', string.byte(string.rep('a', 7997), 1, -1))",
		"return select('#', string.byte(string.rep('a', 7998), 1, -1))",
		"return {string.byte('abc')}", "return {string.byte('abc', 2)}", "return {string.byte('abc', -1, 10)}",
		"return {string.byte('abc', 0)}", "return {string.byte('abc', 3, 2)}", "return {string.byte('abc', '2', '3')}",
		"return {string.byte('abc', 'x')}", "return {string.byte(123, 2)}", "return {string.byte('abc', 2^53)}",
		"return {string.byte('abc', -2^53, 2)}",
		// Redis's Tcl test "Script check unpack with massive arguments".
		"local a = {} for i=1,7999 do a[i] = 1 end return redis.call('lpush', 'l', unpack(a))",
		"return select('#', unpack({}, 1, 1e6))",
		"return select('#', unpack({}, 1, 7997))",
		"return select('#', unpack({}, 1, 7998))",
		"local t={} for i=1,7999 do t[i]=i end return select('#', unpack(t))",
		"local t={} for i=1,8000 do t[i]=i end return select('#', unpack(t))",
		"return select('#', unpack({}, -2147483648, 2147483647))",
		"return select('#', unpack({}, 2^31, 2^31+5))",
		"return select('#', unpack({}, 0, 2^32+3))",
		"return select('#', unpack({}, 1, 1e300))",
		"return {unpack({1,2,3}, '2')}", "return {unpack({1,2,3}, 'x')}", "return {unpack({1,2,3}, nil, 2)}",
		"local t={} for i=1,7999 do t[i]=i end return select(7999, unpack(t))",
		"return select(2^32+1, 'a', 'b')",
		"return select('#', struct.unpack(string.rep('b', 7997), string.rep('x', 7997)))",
		"return select('#', struct.unpack(string.rep('b', 7998), string.rep('x', 7998)))",
		"return select('#', struct.unpack(string.rep('b', 7997), string.rep('x', 7997), 1))",
		"return select('#', struct.unpack(string.rep('b', 300000), string.rep('x', 300000)))",
		"return {struct.unpack('bc0', '\\3abc')}", "return {struct.unpack('c0', 'abc')}", "return {struct.unpack('b', 'abc', 1, 'x')}",
		"return {struct.pack('c99999999999', 'x')}", "return {struct.unpack('i99999999999', 'x')}",
		"return struct.size('c2147483647')", "return struct.size('c2147483648')",
	)
}

func TestScriptLimitsCjson(t *testing.T) {
	p := NewPair(t)
	// cjson's settings last as long as the interpreter: each script that
	// raises them puts them back.
	evalLines(p,
		"local t={} local c=t for i=2,1000 do local x={} c[1]=x c=x end return #cjson.encode(t)",
		"local t={} local c=t for i=2,1001 do local x={} c[1]=x c=x end return #cjson.encode(t)",
		"local t={} t[1]=t return cjson.encode(t)",
		"local t={} t.a=t return cjson.encode(t)",
		"cjson.encode_max_depth(100000) local t={} local c=t for i=2,7997 do local x={} c[1]=x c=x end local r = #cjson.encode(t) cjson.encode_max_depth(1000) return r",
		"cjson.encode_max_depth(100000) local t={} local c=t for i=2,7998 do local x={} c[1]=x c=x end local ok, r = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return r",
		"cjson.encode_max_depth(100000) local t={} local c=t for i=2,3999 do local x={} c.a=x c=x end local r = #cjson.encode(t) cjson.encode_max_depth(1000) return r",
		"cjson.encode_max_depth(100000) local t={} local c=t for i=2,4000 do local x={} c.a=x c=x end local ok, r = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return r",
		"cjson.encode_max_depth(2^31-1) local t={} t[1]=t local ok, r = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return r",
		"return cjson.decode(string.rep('[',1001)..string.rep(']',1001))",
		"local ok, r = pcall(cjson.decode, string.rep('[',1000)..string.rep(']',1000)) return tostring(ok)",
		"return cjson.decode(string.rep('[', 1000000))",
		"return cjson.decode(string.rep('{\"a\":', 1000000))",
		"cjson.decode_max_depth(100000) local ok, r = pcall(cjson.decode, string.rep('[',7998)..string.rep(']',7998)) cjson.decode_max_depth(1000) return tostring(ok) .. tostring(type(r))",
		"cjson.decode_max_depth(100000) local ok, r = pcall(cjson.decode, string.rep('[',7999)..string.rep(']',7999)) cjson.decode_max_depth(1000) return tostring(r)",
		"cjson.decode_max_depth(100000) local ok, r = pcall(cjson.decode, string.rep('{\"a\":',3999)..'1'..string.rep('}',3999)) cjson.decode_max_depth(1000) return tostring(ok)",
		"cjson.decode_max_depth(100000) local ok, r = pcall(cjson.decode, string.rep('{\"a\":',4000)..'1'..string.rep('}',4000)) cjson.decode_max_depth(1000) return tostring(r)",
		"cjson.decode_max_depth(100000) local ok, r = pcall(cjson.decode, string.rep('[{\"a\":',3000)..'1'..string.rep('}]',3000)) cjson.decode_max_depth(1000) return tostring(r)",
		"cjson.decode_max_depth(2^31-1) local r = cjson.decode(string.rep('[', 1000000)) return r",
	)
	p.Do("SCRIPT", "FLUSH")
}

func TestScriptLimitsCmsgpack(t *testing.T) {
	p := NewPair(t)
	evalLines(p,
		"local t = {} t[1] = t return cmsgpack.pack(t)",
		"local t = {} t.a = t return cmsgpack.pack(t)",
		"local t = {} for i=1,4000 do t[i]=i end return #cmsgpack.pack(unpack(t))",
		"local t = {} for i=1,4001 do t[i]=i end return #cmsgpack.pack(unpack(t))",
		"return select('#', cmsgpack.unpack(string.rep(string.char(1), 7999)))",
		"return select('#', cmsgpack.unpack(string.rep(string.char(1), 8000)))",
		"return select('#', cmsgpack.unpack(string.rep(string.char(1), 300000)))",
		"return select('#', cmsgpack.unpack(string.rep(string.char(1), 7998), 'x'))",
		"return select('#', cmsgpack.unpack(string.rep(string.char(1), 7999), 'x'))",
		"local t = cmsgpack.unpack(string.rep(string.char(0x91), 3999)..string.char(1)) return 1",
		"local t = cmsgpack.unpack(string.rep(string.char(0x91), 4000)..string.char(1)) return 1",
		"local t = cmsgpack.unpack(string.rep(string.char(0x91), 100000)..string.char(1)) return 1",
		"local t = cmsgpack.unpack(string.rep(string.char(0x81, 1), 3999)..string.char(1)) return 1",
		"local t = cmsgpack.unpack(string.rep(string.char(0x81, 1), 4000)..string.char(1)) return 1",
		"local ok, e = pcall(cmsgpack.unpack, string.rep(string.char(0x81), 7998)..string.char(1)) return tostring(e)",
		"local ok, e = pcall(cmsgpack.unpack, string.rep(string.char(0x81), 7999)..string.char(1)) return tostring(e)",
		"return {cmsgpack.unpack_one(string.rep(string.char(0x91), 3999)..string.char(1))}",
		"return {cmsgpack.unpack_limit(string.rep(string.char(1), 7999), 7998)}",
		"return select('#', cmsgpack.unpack_limit(string.rep(string.char(1), 8000), 7998))",
		"return select('#', cmsgpack.unpack_limit(string.rep(string.char(1), 8000), 7999))",
		"return select('#', cmsgpack.unpack_limit(string.rep(string.char(1), 10), 0, 0))",
	)
}

// recursion is a script recursing n levels deep, the deepest level
// calling nothing.
func recursion(n int) string {
	return "local function f(n) if n == 0 then return 0 end return 1 + f(n-1) end return f(" + itoa(n) + ")"
}

// coroutineNest resumes n coroutines, each from the one before.
func coroutineNest(n int) string {
	return "local function f(n) if n == 0 then return 0 end local co = coroutine.create(f) local ok, v = coroutine.resume(co, n-1) if not ok then error(v, 0) end return v + 1 end return f(" + itoa(n) + ")"
}

func TestScriptLimitsCalls(t *testing.T) {
	p := NewPair(t)
	evalLines(p,
		"local function f() return f() + 1 end return f()",
		"local function f() return 1 + f() end return f()",
		"local function f(n)\n  local x = 1\n  return x + f(n)\nend\nreturn f(1)",
		"local function f(n)\n  local x = 1\n  return x + f(n)\nend\nlocal ok, e = pcall(f, 1)\nreturn e",
		"local function f(n)\n  local x = 1\n  return x + f(n)\nend\nlocal ok, e = xpcall(function() return f(1) end, function(m) return 'H:' .. tostring(m) end)\nreturn e",
		recursion(10000), recursion(19998), recursion(19999), recursion(30000),
		"local function f(n) if n == 0 then error('deep') end return 1 + f(n-1) end return {xpcall(function() return f(19990) end, function(m) return 'H:' .. tostring(m) end)}",
		"return {xpcall(function() error('x') end, function(m) error('y') end)}",
		"local function h(m) return h(m) .. 'x' end return {xpcall(function() error('x') end, h)}",
		// Nested C calls.
		"local d = 0 local function f() d = d + 1 local ok, e = pcall(f) if not ok then return e end return e end local r = f() return {d, r}",
		"local d = 0 local function f() d = d + 1 local ok, e = xpcall(f, function(m) return m end) if not ok then return e end return e end local r = f() return {d, r}",
		"local d = 0 local function f() d = d + 1 local co = coroutine.create(function() return pcall(f) end) local ok, a, b = coroutine.resume(co) return tostring(ok) .. tostring(a) .. tostring(b) end local r = f() return {d, r}",
		coroutineNest(198), coroutineNest(199), coroutineNest(250), coroutineNest(100000),
		"local function f(n) if n == 0 then return 0 end return coroutine.wrap(f)(n-1) + 1 end return f(250)",
		"local d = 0 local function f() d = d + 1 table.foreach({1}, f) end local ok, e = pcall(f) return {d, e}",
		"local d = 0 local function f() d = d + 1 string.gsub('x', 'x', f) end local ok, e = pcall(f) return {d, e}",
		"local d = 0 local mt = {} mt.__tostring = function() d = d + 1 return tostring(setmetatable({}, mt)) end local ok, e = pcall(tostring, setmetatable({}, mt)) return {d, e}",
		// Coroutines in Lua 5.1's words.
		"local co = coroutine.create(function() end) coroutine.resume(co) return {coroutine.resume(co)}",
		"local co co = coroutine.create(function() return coroutine.resume(co) end) return {coroutine.resume(co)}",
		"local a, b a = coroutine.create(function() return coroutine.resume(b) end) b = coroutine.create(function() return coroutine.resume(a) end) return {coroutine.resume(a)}",
		"local a, b a = coroutine.create(function() return coroutine.status(b) .. coroutine.status(a) end) b = coroutine.create(function() return coroutine.resume(a) end) return {coroutine.resume(b)}",
		"local f = coroutine.wrap(function() error('boom') end) return f()",
		"local f = coroutine.wrap(function() error({err='X'}) end) return f()",
		"local f = coroutine.wrap(function() end) f() return f()",
		"local f = coroutine.wrap(function() end) f() return {pcall(f)}",
		"return coroutine.resume(42)",
		"return coroutine.create(string.len)",
		"return {coroutine.yield()}",
		"local co = coroutine.create(function(...) return select('#', ...) end) return {coroutine.resume(co, unpack({}, 1, 7997))}",
		"local co = coroutine.create(function(...) return ... end) return select('#', coroutine.resume(co, unpack({}, 1, 7997)))",
		"local co = coroutine.create(function() return unpack({}, 1, 7998) end) return select('#', coroutine.resume(co))",
		"local co = coroutine.create(function() coroutine.yield(unpack({}, 1, 7997)) end) return select('#', coroutine.resume(co))",
		"error('x', 2)",
	)
}

func TestScriptLimitsParser(t *testing.T) {
	p := NewPair(t)
	parens := func(n int) string { return "return " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	evalLines(p,
		parens(198), parens(199), parens(100000),
		strings.Repeat("do ", 199)+strings.Repeat(" end", 199)+" return 1",
		strings.Repeat("do ", 200)+strings.Repeat(" end", 200)+" return 1",
		strings.Repeat("do ", 1000000)+strings.Repeat(" end", 1000000)+" return 1",
		"return "+strings.Repeat("{", 199)+"1"+strings.Repeat("}", 199),
		"return "+strings.Repeat("function() return ", 99)+"1"+strings.Repeat(" end", 99),
		"return "+strings.Repeat("function() return ", 100)+"1"+strings.Repeat(" end", 100),
		"return 'a'"+strings.Repeat("..'a'", 197), "return 'a'"+strings.Repeat("..'a'", 198), "return 'a'"+strings.Repeat("..'a'", 1000000),
		"local f=function(x) return x end return "+strings.Repeat("f(", 199)+"1"+strings.Repeat(")", 199),
		"local a a"+strings.Repeat(",a", 199)+"=1 return 1",
		"local a a"+strings.Repeat(",a", 200)+"=1 return 1",
		"local a\nlocal function f()\na"+strings.Repeat(",a", 199)+"=1 end return 1",
		"local a\nlocal function f()\na"+strings.Repeat(",a", 198)+"=1 end return 1",
		"return "+strings.Repeat("not ", 197)+"1", "return "+strings.Repeat("not ", 198)+"1",
		"return "+strings.Repeat("- ", 1000000)+"1",
		"return 1"+strings.Repeat("+1", 100000),
		// loadstring and load: the same parser, counting from the calls
		// under way, and Lua's chunk names.
		"return select(2, loadstring('return ' .. string.rep('(', 198) .. '1' .. string.rep(')', 198)))",
		"return loadstring('return ' .. string.rep('(', 197) .. '1' .. string.rep(')', 197))()",
		"return select(2, loadstring('return ' .. string.rep('(', 1000000)))",
		"return select(2, loadstring('return +'))",
		"return select(2, loadstring('return +', '=mine'))",
		"return select(2, loadstring('return +', '@mine'))",
		"return select(2, loadstring('x\\nreturn +'))",
		"return select(2, loadstring(string.rep('x', 100) .. ' +'))",
		"return select(2, loadstring(string.rep('x', 63) .. ' +'))",
		"return select(2, loadstring(string.rep('x', 42)))",
		"return select(2, load(function() return nil end))",
		"return select(2, load(function() return {} end))",
		"local i = 0 return select(2, load(function() i = i + 1 if i == 1 then return 'return +' end end))",
		"local i = 0 return select(2, load(function() i = i + 1 if i == 1 then return 'return +' end end, '=x'))",
		"local i = 0 return load(function() i = i + 1 if i == 1 then return 'return 4' end end)()",
		"return loadstring('return ...')(1,2)",
		"return loadstring('x = 1')()",
		"return loadstring('local function g() return g() + 1 end return g()')()",
		"return loadstring('local x = nil; return x.y')()",
		"return {pcall(loadstring('local x = nil; return x.y'))}",
		"return {loadstring()}", "return {load()}", "return {load(5)}", "return loadstring('return 1', 5)()",
	)
}

func TestScriptLimitsPatterns(t *testing.T) {
	p := NewPair(t)
	evalLines(p,
		"return {string.gsub('hello world', 'o', '0')}", "return {string.gsub('hello world', 'o', '%%')}",
		"return {string.gsub('hello world', 'o', '%x')}", "return {string.gsub('hello world', '(o)', '[%1%0]')}",
		"return {string.gsub('hello world', 'o', '%1')}", "return {string.gsub('hello world', 'o', '%2')}",
		"return {string.gsub('hello', '', '-')}", "return {string.gsub('hello', 'l*', '-')}", "return {string.gsub('hello', '^h', 'H')}",
		"return {string.gsub('hello', 'l', 'L', 1)}", "return {string.gsub('hello', 'l', 'L', 0)}", "return {string.gsub('hello', 'l', 'L', -1)}",
		"return {string.gsub('hello', 'l', 'L', '1')}", "return {string.gsub('hello', '()l', '%1')}",
		"return {string.gsub('hello world', '%w+', {hello='HI', world=false})}", "return {string.gsub('hello world', '%w+', {hello=5})}",
		"return {string.gsub('hello world', '%w+', {hello={}})}",
		"return {string.gsub('hello world', '(%w)(%w*)', function(a, b) return b .. a end)}",
		"return {string.gsub('hello world', '%w+', function() return nil end)}",
		"return {string.gsub('hello world', '%w+', function() return {} end)}",
		"return {string.gsub('hello world', '()', function(p) return p end)}",
		"return {string.gsub('abc', '%', 'x')}", "return {string.gsub('abc', '(', 'x')}", "return {string.gsub('abc', 'b', true)}",
		"return {string.gsub('abc', 'b')}", "return {string.gsub(123, 2, 5)}", "return {string.gsub('abc', '[a', 'x')}",
		"return {string.gsub('abc', '%b', 'x')}", "return {string.gsub('a.b', '%.', '%%%%')}", "return {string.gsub('abc', 'b', '%')}",
		"return select('#', string.gsub(string.rep('x', 100000), 'x', 'y'))",
		"return string.gsub(string.rep('x', 1000000), 'x', 'y'):len()",
		"return {string.find('hello world', 'o w')}", "return {string.find('hello world', 'o', 6)}",
		"return {string.find('hello world', '(l+)(o)')}", "return {string.find('hello', 'l', -2)}",
		"return {string.find('hello', 'l', -100)}", "return {string.find('hello', 'l', 100)}", "return {string.find('hello', '')}",
		"return {string.find('hello', '', 10)}", "return {string.find('he.llo', '.', 1, true)}", "return {string.find('a+b', '+', 1, true)}",
		"return {string.find('a+b', 'a+b')}", "return {string.match('key=value', '(%w+)=(%w+)')}", "return {string.match('hello', '()ll()')}",
		"return {string.match('  trim  ', '^%s*(.-)%s*$')}", "return {string.match('THE (quick) fox', '%((%a+)%)')}",
		"return {string.match('f(a(b)c)d', '%b()')}", "return {string.match('THE quick', '%f[%a]%a+', 4)}",
		"return {string.match('hello', '%f[a]')}", "return {string.match('aaab', 'a-b')}", "return {string.match('abc', '((a)(b))')}",
		"return {string.match('abcabc', '(abc)%1')}", "return {string.match('abc', '%1')}", "return {string.match('abc', '(a%1)')}",
		"return {string.match('a]b', '[]]')}", "return {string.match('a-b', '[a-]')}", "return {string.match('a^b', '[^a]')}",
		"return {string.match('ABC', '%U')}", "return {string.match('a.b', '%p')}", "return {string.match('\\1\\2a', '%c+')}",
		"return {string.match('ab\\0cd', '%z')}", "return {string.match('ab\\0cd', 'b\\0c')}", "return {string.match('abc', '[')}",
		"return {string.match('abc', '[^')}", "return {string.match('abc', '%f')}", "return {string.match('abc', '%fa')}",
		"return {string.match('abc', '(()')}", "return {string.match('abc', 'a)')}", "return {string.match('abc', '%')}",
		"return {string.find('0', '\\0')}", "return {string.gsub('0', '\\0', 'x')}", "return {string.find('a\\0b', '\\0')}",
		"local t = {} for k, v in string.gmatch('a=1, b=2, c=3', '(%w+)=(%w+)') do t[#t+1] = k .. v end return t",
		"local t = {} for w in string.gmatch('abc', '') do t[#t+1] = 'x' end return #t",
		"local t = {} for w in string.gmatch('^a^a', '^a') do t[#t+1] = w end return t",
		"return {pcall(string.match, 'abc', '(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))')}",
		"return {pcall(string.match, 'abc', '((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))')}",
		"return {string.find(string.rep('a', 99990) .. 'b', 'a*b')}",
		"return {string.find(string.rep('a', 999990) .. 'b', '(a*)b')}",
		"return {string.find(12345, 34)}", "return {string.find('abc', 'b', 'x')}", "return {string.find('abc')}",
	)
}

func TestScriptLimitsStrings(t *testing.T) {
	p := NewPair(t)
	evalLines(p,
		"return #string.rep('x', 2^31)", "return #string.rep('x', 2^32+3)", "return #string.rep('', 1000)",
		"return #string.rep('ab', -5)", "return #string.rep('ab', '3')", "return string.rep('ab', 'x')",
		"return table.concat({1, 2.5, 'x'}, '-')", "return table.concat({1, 2, 3}, ', ', 2)",
		"return table.concat({1, 2, 3}, ', ', 2, 5)", "return table.concat({1, {}, 3})", "return table.concat({}, {})",
		"return table.concat(5)", "return table.concat({1,2,3}, nil, 3, 1)", "return table.concat({1e15, 0.1, -0})",
		"local s = 'x' for i = 1, 20 do s = s .. s end return #s",
		"local s = 'x' for i = 1, 10 do s = s .. 1 .. s .. 2.5 .. s end return #s",
	)
}

const limitsLib = "#!lua name=limits\n" +
	"redis.register_function('nest', function(keys, args) local t = {} t[1] = t return t end)\n" +
	"redis.register_function('bytes', function(keys, args) return select('#', string.byte(string.rep('a', tonumber(args[1])), 1, -1)) end)\n" +
	"local function f() return f() + 1 end\n" +
	"redis.register_function('recurse', function() return f() end)\n" +
	"local function co(n) if n == 0 then return 0 end local c = coroutine.create(co) local ok, v = coroutine.resume(c, n-1) if not ok then error(v, 0) end return v + 1 end\n" +
	"redis.register_function('coroutines', function(keys, args) return co(tonumber(args[1])) end)\n" +
	"redis.register_function('json', function(keys, args) return cjson.decode(args[1]) end)\n" +
	"redis.register_function('unpack', function(keys, args) return select('#', unpack({}, 1, tonumber(args[1]))) end)\n"

func TestFunctionLimits(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", limitsLib)
	p.Do("FCALL", "nest", "0")
	p.Do("FCALL", "bytes", "0", "7997")
	p.Do("FCALL", "bytes", "0", "7998")
	p.Do("FCALL", "bytes", "0", "300000")
	p.Do("FCALL", "recurse", "0")
	p.Do("FCALL", "coroutines", "0", "198")
	p.Do("FCALL", "coroutines", "0", "250")
	p.Do("FCALL", "json", "0", strings.Repeat("[", 1001))
	p.Do("FCALL", "json", "0", strings.Repeat("[", 1000000))
	p.Do("FCALL", "unpack", "0", "7997")
	p.Do("FCALL", "unpack", "0", "1000000")
	p.Do("FCALL", "bytes", "0", "3")
	// At load time: the parser's levels and the run-time limits.
	p.Do("FUNCTION", "LOAD", "#!lua name=deep\nreturn "+strings.Repeat("(", 300)+"1"+strings.Repeat(")", 300))
	p.Do("FUNCTION", "LOAD", "#!lua name=deep\nlocal function f() return f() + 1 end f()")
	p.Do("FUNCTION", "LOAD", "#!lua name=deep\nlocal t = cjson.decode(string.rep('[', 2000))")
	p.Do("FUNCTION", "LOAD", "#!lua name=deep\nlocal x = select('#', string.byte(string.rep('a', 300000), 1, -1))")
	p.Do("FCALL", "recurse", "0")
	p.Do("FUNCTION", "FLUSH")
}

func TestScriptLimitsCollectgarbage(t *testing.T) {
	p := NewPair(t)
	// collectgarbage must not run a collection over the whole server
	// (lockkv's ran Go's on every call). Its settings last as long as the
	// interpreter; SCRIPT FLUSH makes a new one. The count and step's
	// result depend on Redis's heap: only their types are compared.
	p.Do("SCRIPT", "FLUSH")
	evalLines(p,
		"for i = 1, 100000 do collectgarbage() end return collectgarbage('collect')",
		"return {collectgarbage('stop'), collectgarbage('restart')}",
		"return type(collectgarbage('count'))", "return type(collectgarbage('step'))", "return gcinfo() > 0",
		"return {collectgarbage('setpause', 150), collectgarbage('setpause', 200)}",
		"return {collectgarbage('setstepmul', '300'), collectgarbage('setstepmul', 200)}",
		"return collectgarbage('x')", "return collectgarbage(5)", "return collectgarbage('count', 'x')",
		"local a, b = {}, {} setmetatable(a, {__index = b}) setmetatable(b, {__index = a}) return a.x",
		"local a, b = {}, {} setmetatable(a, {__newindex = b}) setmetatable(b, {__newindex = a}) a.x = 1 return 1",
		"local t = {} for i = 1, 99 do t = setmetatable({}, {__index = t}) end return t.x",
		"local t = {} for i = 1, 100 do t = setmetatable({}, {__index = t}) end return t.x",
	)
	p.Do("SCRIPT", "FLUSH")
}
