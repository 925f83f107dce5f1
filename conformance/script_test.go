package conformance

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// evalAll runs each script with EVAL on both servers (no keys).
func evalAll(p *Pair, scripts ...string) {
	p.t.Helper()
	for _, s := range scripts {
		p.Do("EVAL", s, "0")
	}
}

func TestScriptEvalBasics(t *testing.T) {
	p := NewPair(t)
	p.Do("EVAL", "return 1", "0")
	p.Do("EVAL", "return KEYS[1]..ARGV[1]", "1", "k", "v")
	p.Do("EVAL", "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}", "2", "a", "b", "c", "d")
	p.Do("EVAL", "return #KEYS + #ARGV", "0", "x", "y", "z")
	p.Do("EVAL", "return 1", "-1")
	p.Do("EVAL", "return 1", "2", "a")
	p.Do("EVAL", "return 1", "x")
	p.Do("EVAL", "return 1", "1.5")
	p.Do("EVAL", "return 1")
	p.Do("EVAL")
	p.Do("eval", "return 'x'", "0")
	p.Do("EVAL", "", "0")
}

func TestScriptEvalsha(t *testing.T) {
	p := NewPair(t)
	p.Do("SCRIPT", "FLUSH")
	p.Do("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
	p.Do("EVALSHA", "abc", "0")
	p.Do("EVALSHA", "abc", "x")
	p.Do("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x")
	p.Do("SCRIPT", "LOAD", "return 1")
	p.Do("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
	p.Do("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0")
	p.Do("EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
	p.Do("EVAL", "return 2", "0")
	p.Do("SCRIPT", "EXISTS", "7f923f79fe76194c868d7e1d0820de36700eb649", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "nope", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB")
	p.Do("EVALSHA", "7f923f79fe76194c868d7e1d0820de36700eb649", "0")
	p.Do("SCRIPT", "FLUSH")
	p.Do("SCRIPT", "EXISTS", "7f923f79fe76194c868d7e1d0820de36700eb649", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
	p.Do("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")
	p.Do("SCRIPT", "FLUSH", "ASYNC")
	p.Do("SCRIPT", "FLUSH", "sync")
	p.Do("SCRIPT", "FLUSH", "x")
	p.Do("SCRIPT", "FLUSH", "sync", "async")
	p.Do("SCRIPT", "LOAD", "return +")
	p.Do("SCRIPT", "LOAD")
	p.Do("SCRIPT", "EXISTS")
	p.Do("SCRIPT", "KILL")
	p.Do("SCRIPT", "HELP")
	p.Do("SCRIPT", "NOSUCH")
	p.Do("SCRIPT")
	p.Do("SCRIPT", "DEBUG", "no")
	p.Do("SCRIPT", "DEBUG", "maybe")
	p.Do("SCRIPT", "LOAD", "return redis.sha1hex('abc')")
	p.Do("EVALSHA", "ad2c80def2d6b4b1fd5d5f5b7e3d3b4ec1ba5d10", "0")
}

func TestScriptLuaToReply(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return 3.99", "return -3.99", "return 0/0", "return 1/0", "return -1/0", "return 1e300",
		"return 'str'", "return true", "return false", "return nil",
		"return {1,2,nil,4}", "return {1,{2,{3,'x'}},true,false}", "return {}",
		"return {a=1}", "return {1,2,a=1}",
		"return {ok='fine'}", "return {ok='a\\r\\nb'}", "return {ok=5}",
		"return {err='MY error'}", "return {err='noprefix'}", "return {err=''}", "return {err='a\\r\\nb'}", "return {err=5}",
		"return {double=1.5}", "return {double=3}", "return {big_number='12345678901234567890'}",
		"return {map={a=1}}", "return {set={x=true}}",
		"return {verbatim_string={format='txt',string='hello'}}",
		"return redis.status_reply('FINE')", "return redis.error_reply('FOO')", "return redis.error_reply('-FOO')",
		"return redis.error_reply('-FOO bar')", "return redis.error_reply('foo bar')",
		"return redis.error_reply(5)", "return redis.error_reply()", "return redis.status_reply(5)",
		"return function() end", "return coroutine.create(function() end)",
		"return {1, {ok='x'}, {err='ERR nested'}}",
		"return {err={}}", "return {ok={}}", "return {1, {err='x'}, 3}", "return {err='x', ok='y'}",
		"return {ok='y', 1, 2}", "return {double='1.5'}", "return {double=1.5, ok='y'}", "return {map=5}",
		"return {map={}}", "return {set={}}", "return {big_number=5}", "return {verbatim_string=5}",
		"return {verbatim_string={format='txt'}}",
		"local function f() return 1 + f() end return f()",
	)
	// Not compared: error({}) and error({err={}}) crash Redis 7.0.15 (it
	// formats a NULL message); lockkv answers with an error instead.
}

func TestScriptReplyToLua(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "s", "hello")
	evalAll(p,
		"return redis.call('get','s')",
		"return type(redis.call('get','nosuch'))",
		"return redis.call('get','nosuch') == false",
		"return redis.call('set','x','1')",
		"return type(redis.call('set','x','1'))",
		"return redis.call('set','x','1').ok",
		"return redis.call('ping')",
		"return redis.pcall('nosuchcmd')",
		"return redis.pcall('nosuchcmd').err",
		"local r = redis.pcall('nosuchcmd') return type(r)",
		"return redis.pcall('get','a','b')",
		"return redis.call('echo', 12)",
		"return redis.call('echo', 1.5)",
		"return redis.call('echo', 0.1)",
		"return redis.call('echo', 1e20)",
		"return redis.call('echo', -0.5)",
		"return redis.call('echo', 123456789012345678)",
	)
}

func TestScriptCallErrors(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return redis.call('nosuch')",
		"return redis.call('get')",
		"return redis.call('get','a','b')",
		"return redis.call('script','nosuch')",
		"return redis.call('script')",
		"return redis.call('eval','return 1','0')",
		"return redis.call('quit')",
		"return redis.call()",
		"return redis.call({})",
		"return redis.call('get',{})",
		"return redis.call('get',true)",
		"return redis.pcall()",
		"return redis.pcall('get', nil)",
		"\n\nreturn redis.call('nosuch')",
		"local x = 1\nlocal y = redis.call('nosuch')\nreturn y",
		"return pcall(redis.call, 'nosuch')",
		"return {pcall(redis.call, 'nosuch')}",
		"local ok, e = pcall(redis.call, 'nosuch') return e",
		"return redis.call('select', 5)",
	)
	p.Do("EVAL_RO", "return redis.call('set','a','b')", "0")
	p.Do("EVAL_RO", "return redis.call('get','a')", "0")
	p.Do("EVAL_RO", "return redis.pcall('set','a','b')", "0")
	p.Do("EVAL", "#!lua flags=no-writes\nreturn redis.call('set','a','b')", "0")
	p.Do("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','a')", "0")
	p.Do("EVAL_RO", "#!lua\nreturn 1", "0")
	p.Do("EVAL", "#!lua\nreturn redis.call('set','a','b')", "0")
	p.Do("EVAL", "#!lux\nreturn 1", "0")
	p.Do("EVAL", "#!lua x=y\nreturn 1", "0")
	p.Do("EVAL", "#!lua flags=bad\nreturn 1", "0")
	p.Do("EVAL", "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster\nreturn 1", "0")
	p.Do("EVAL", "#!lua", "0")
	p.Do("GET", "a")
}

func TestScriptRuntimeErrors(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"error('boom')",
		"error({err='MY boom'})",
		"error({err='no space'})",
		"error()",
		"error(5)",
		"error('x', 0)",
		"error('x', 2)",
		"return nosuchvar",
		"return x.y",
		"x = 1",
		"_G.x = 1",
		"rawset(_G, 'x', 1)",
		"setmetatable(_G, nil)",
		"string.x = 1",
		"redis.call = nil",
		"math.random = function() return 4 end",
		"local function f() error('deep') end\nf()",
		"local function f()\n  return redis.call('nosuch')\nend\nreturn f()",
		"return dofile",
		"return loadfile",
		"return print",
		"return os",
		"return io",
		"return require",
		"return module",
		"return getfenv",
		"return setfenv",
		"return newproxy",
		"return debug",
		"return package",
		"return _GOPHER_LUA_VERSION",
		"return _VERSION",
		"return type(loadstring)",
		"return type(gcinfo)",
		"return type(coroutine)",
		"return type(getmetatable(_G))",
		"return type(getmetatable(string))",
		"return type(getmetatable(''))",
		"getmetatable('').x = 1",
		"return rawget(_G, 'redis') ~= nil",
		"return redis.sha1hex()",
		"return redis.sha1hex('')",
		"return redis.sha1hex(5)",
		"return redis.sha1hex({})",
		"return redis.log(redis.LOG_WARNING)",
		"return redis.log('x', 'y')",
		"return redis.log(9, 'y')",
		"return redis.log(redis.LOG_DEBUG, 'quiet')",
		"return redis.setresp()",
		"return redis.setresp(4)",
		"return redis.set_repl()",
		"return redis.set_repl(9)",
		"redis.set_repl(redis.REPL_NONE) return 1",
		"return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
		"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
		"return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}",
		"return redis.breakpoint()",
		"return redis.debug('x')",
		"return redis.replicate_commands()",
		"return redis.acl_check_cmd('get','a')",
		"return redis.acl_check_cmd('nosuch')",
		"return 1 + nil",
		"local s = 'x' .. {}",
		"return nil < 1",
		"return {} < {}",
		"table.insert(string, 1)", "table.insert(_G, 1)", "return table.remove(string)", "table.sort(string)",
		// table.insert checks its arguments before its store fails.
		"table.insert(string)", "table.insert(string, 1, 2, 3)", "table.insert(string, 'a', 2)",
		// Read-only tables (Redis 7.0's lua_enablereadonlytable): every
		// library, _G's metatable and the string metatable; through a
		// __newindex chain, rawset, setmetatable, pcall.
		"return tostring(getmetatable(_G).__newindex)", "getmetatable(_G).__index = nil",
		"local mt = getmetatable(_G) mt.foo = 1", "getmetatable('').__index = nil",
		"local t = setmetatable({}, {__newindex = string}) t.x = 1",
		"local t = setmetatable({}, {__index = string}) t.x = 1 return t.x",
		"local t = setmetatable({}, {__newindex = string}) t[nil] = 1", "local t = setmetatable({}, {__newindex = string}) t[0/0] = 1",
		"return {pcall(function() local k local t = setmetatable({}, {__newindex = function() end}) t[k] = 1 end)}",
		"return {pcall(function() string.x = 1 end)}", "return {pcall(function() redis.call = nil end)}",
		"rawset(string, 'x', 1)", "table.insert(cjson, 1)", "table.insert(string, 1, 2)", "setmetatable(_G, {})",
		"string.format = nil", "bit.band = nil", "cmsgpack.pack = nil", "struct.x = 1", "math.pi = 3",
		"coroutine.x = 1", "cjson.x = 1", "redis = nil", "KEYS = {}", "_G._G = nil",
		"return tostring(getmetatable(redis))", "return type(getmetatable('').__index)",
		"return rawequal(_G, _G._G)", "return #string", "table.sort(_G)", "return next(redis) ~= nil",
		// An error whose value is a shared table: Redis's handler fails
		// storing into it; the table is left as it was.
		"error(string)", "error(_G)", "error(getmetatable(''))", "error(cjson)",
		"error(setmetatable({}, {__newindex = string}))", "return {pcall(error, string)}",
		"return {tostring(rawget(string, 'source')), tostring(string.line), tostring(rawget(_G, 'line'))}",
		// The handler's err['source'] and err['line'] (its lines 10 and
		// 11) are Lua assignments, through the error table's __newindex
		// chain; the reply reads err, source and line through __index.
		// (No __newindex function: Redis may crash on one.)
		"error(setmetatable({source = 'x'}, {__newindex = string}))",
		"error(setmetatable({err = 'E1'}, {__newindex = setmetatable({source = 1}, {__newindex = string})}))",
		"local x = {} error(setmetatable({err = 'E2'}, {__newindex = x}))",
		"error(setmetatable({}, {__index = {err = 'E3'}}))",
		"error(setmetatable({err = 'E4'}, {__index = {source = '@zz', line = 7}, __newindex = {}}))",
		"local a, b = {err = 'E5'}, {} setmetatable(a, {__newindex = b}) setmetatable(b, {__newindex = a}) error(a)",
		// A script's own call of the handler raises what its stores raise.
		"__redis__err__handler(string)", "return {pcall(__redis__err__handler, string)}",
		"local x = 1\n__redis__err__handler(setmetatable({source = 1}, {__newindex = _G}))",
		"local ok, e = pcall(__redis__err__handler, string) error(e, 0)",
		"local ok, t = xpcall(function() error(string) end, __redis__err__handler) return {t.err, t.source, t.line}",
		// A failed nil store leaves the table's keys as they were.
		"pcall(function() string.format = nil end) local n = 0 for k in pairs(string) do n = n + 1 end return n",
		"pcall(function() _G.redis = nil end) local n = 0 for k in pairs(_G) do n = n + 1 end return {n, type(redis)}",
		// What strings are indexed through is the string library and
		// nothing else: no __index table to write to, no metamethods,
		// no helpers of lockkv's Lua 5.1 emulation (which store into
		// whatever table they are given); each attempt is followed by
		// scripts that would see what it changed.
		"return type(('').__index)", "return type(('').__add)", "return rawequal(('').format, string.format)",
		"return {pcall(function() return ('%z'):format(1) end)}", "return ('%q'):format('a\\0b')",
		"local s = ('').__index s.upper = function() return 'x' end",
		"local h = ('')['\\0(lockkv table)'] h(_G, 0)",
		"local s, p = ('')['\\0(lockkv stash)'], ('')['\\0(lockkv split table)'] s(2, 'redis', 1) p(_G, 0, 0, 0, 1, 0)",
		"return {('a'):upper(), type(redis)}", "return nosuch",
	)
}

func TestScriptRuntimeErrorNames(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"local t = {} t.x.y = 1", "local t = {} return t.x.y", "return redis.x.y", "local a = nil; a()",
		"local t = {} t.f()", "local t = {} t:m()", "return #nil", "local s = nil return #s", "local t = {} return #t.x",
		"local x return x + 1", "local t = {} return t.n + 1", "return 1 + nil", "local t = {} return 'x' .. t",
		"local t = {} return t .. 'x'", "local t = {} return 'a' .. t.q .. 'b'", "local a = {} return -a",
		"local f = function() end return f.x", "local t = {} t[1][2] = 3",
		"local up = nil; local function g() return up.x end return g()", "return string.x.y", "return ARGV[1].x",
		"return KEYS[1] + 1", "local n = redis.call('get','nosuchkey') return n + 1",
		"local n = redis.call('get','nosuchkey') return n .. 'x'", "return ({}).x.y",
		"local t = setmetatable({}, {__index = function(t,k) return nil end}) return t.a.b",
		"local a, b = 1, {} return a * b", "local s = 'abc' return s + 1", "local t = {} return t.x()",
		"local t = {a={}} return t.a.b.c", "local x = true return x.y", "local x = 5 return x()",
		"local t = {} for i = 1, 2 do t = t.next end return 1",
		"local t = {} local ok, e = pcall(function() return t.x.y end) return e",
	)
}

func TestScriptGlobals(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"local r={} for k,v in pairs(_G) do r[#r+1]=k..':'..type(v) end table.sort(r) return r",
		"local r={} for k,v in pairs(string) do r[#r+1]=k end table.sort(r) return r",
		"local r={} for k,v in pairs(math) do r[#r+1]=k end table.sort(r) return r",
		"local r={} for k,v in pairs(table) do r[#r+1]=k end table.sort(r) return r",
		"local r={} for k,v in pairs(redis) do r[#r+1]=k end table.sort(r) return r",
		"local r={} for k,v in pairs(coroutine) do r[#r+1]=k end table.sort(r) return r",
		"local r={} for k,v in pairs(KEYS) do r[#r+1]=k end return r",
	)
	// KEYS and ARGV are replaced on every call; scripts cannot leak state.
	p.Do("EVAL", "KEYS[1] = 'changed' return KEYS[1]", "1", "k")
	p.Do("EVAL", "return KEYS[1]", "1", "other")
	p.Do("EVAL", "return KEYS[1]", "0")
	p.Do("EVAL", "table.insert(KEYS, 'x') return KEYS", "0")
	p.Do("EVAL", "local ok, e = pcall(function() x = 1 end) return {ok and 1 or 0, e}", "0")
	p.Do("EVAL", "return type(x)", "0")
}

func TestScriptSelect(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "k", "db0")
	p.Do("EVAL", "redis.call('select', 1) redis.call('set', 'k', 'db1') return redis.call('get','k')", "0")
	p.Do("GET", "k")
	p.Do("SELECT", "1")
	p.Do("GET", "k")
	p.Do("EVAL", "return redis.call('get','k')", "0")
	p.Do("SELECT", "0")
	p.Do("EVAL", "return redis.call('get','k')", "0")
	p.Do("SELECT", "1")
	p.Do("FLUSHDB")
	p.Do("SELECT", "0")
}

func TestScriptRandom(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"math.randomseed(42) return {tostring(math.random()), math.random(10), math.random(5, 100)}",
		"math.randomseed(7) local t = {} for i=1,20 do t[i] = math.random(1000) end return t",
		"return math.random(0)",
		"return math.random(5, 1)",
		"return math.random(1, 2, 3)",
	)
}

func TestScriptCjson(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return cjson.encode({1,2,3})", "return cjson.encode({})", "return cjson.encode({a=1})",
		"return cjson.encode({a={b='x/y'}})", "return cjson.encode('a\"b\\\\c\\n\\t\\1\\127')",
		"return cjson.encode(1.5)", "return cjson.encode(0.1)", "return cjson.encode(1/3)", "return cjson.encode(1e20)",
		"return cjson.encode(123456789012345)", "return cjson.encode(12345678901234)", "return cjson.encode(-0)",
		"return cjson.encode(true)", "return cjson.encode(nil)", "return cjson.encode(cjson.null)",
		"return cjson.encode({1,nil,3})", "return cjson.encode({[1]=1,[5]=2})", "return cjson.encode({[1]=1,[20]=2})",
		"return cjson.encode({[1]=1,x=2})", "return cjson.encode(0/0)", "return cjson.encode(1/0)",
		"return cjson.encode(function() end)", "return cjson.encode({[true]=1})",
		"return cjson.encode({-1})", "return cjson.encode({[0]=1})", "return cjson.encode({[1.5]=1})",
		"return cjson.encode({{},{{}},{a={}}})", "return cjson.encode()", "return cjson.encode(1, 2)",
		"return cjson.decode('[1,2,3]')", "return cjson.decode('{\"a\":1}').a", "return type(cjson.decode('null'))",
		"return cjson.decode('\"\\\\u00e9\\\\ud83d\\\\ude00\\\\n\\\\/\"')", "return cjson.decode('[1,')", "return cjson.decode('x')",
		"return cjson.decode('{\"a\":1} x')", "return cjson.decode('1e2')", "return cjson.decode('[1.5, true, null, \"s\"]')",
		"return cjson.decode()", "return cjson.decode('')", "return cjson.decode('{')", "return cjson.decode('{1:2}')",
		"return cjson.decode('{\"a\" 2}')", "return cjson.decode('{\"a\":2 \"b\"}')", "return cjson.decode('[1 2]')",
		"return cjson.decode('\"abc')", "return cjson.decode('\"\\\\q\"')", "return cjson.decode('\"\\\\u12\"')",
		"return cjson.decode('0x10')", "return cjson.decode(' [ ] ')", "return cjson.decode('-')", "return cjson.decode('01')",
		"return cjson.encode(cjson.decode('{}'))", "return cjson.encode(cjson.decode('[]'))",
		"return cjson.encode(cjson.decode('{\"k\":[1,2,{\"x\":null}]}'))",
		"return cjson.decode('{\"a\":{\"b\":[10,20]}}').a.b[2]",
		"return cjson._VERSION", "return cjson._NAME",
		"local r={} for k,v in pairs(cjson) do r[#r+1]=k end table.sort(r) return r",
		"return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}",
		"return {cjson.encode_sparse_array()}",
		"return cjson.encode(string.rep('[', 3))",
		"return cjson.decode(string.rep('[', 1001))",
	)
}

func TestScriptLua51Numbers(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "n", "5")
	p.Do("SET", "f", "2.5")
	evalAll(p,
		"return 'x' .. 1.5", "return 'x' .. 1/3", "return 'x' .. 1e15", "return 'x' .. 1e100", "return 'x' .. 123456789012",
		"return 'x' .. -0.0", "return 'x' .. 2^53", "return 1 .. ''", "return 1.25 .. 2",
		"return tostring(1/3)", "return tostring(1e15)", "return tostring(-1/0)", "return tostring(0/0)", "return tostring(100)",
		"return tostring(math.huge)", "return tostring(-math.huge)", "return tostring(2^63)",
		"return tonumber('0x10')", "return tonumber('  5  ')", "return tonumber('1e2')", "return tonumber('')",
		"return tonumber('5x')", "return tonumber('010')", "return tonumber('-0x10')", "return tonumber(' 0x1F ')",
		"return tonumber('1e')", "return tonumber('.5') * 10", "return tonumber('5.')", "return tonumber('inf') > 0",
		"return tonumber('z', 36)", "return tonumber('ff', 16)", "return tonumber('777', 8)", "return tonumber('8', 8)",
		"return tonumber('11', 2)", "return tonumber(nil)", "return tonumber({})", "return tonumber(true)",
		"return redis.call('get','n') + 1", "return redis.call('get','f') * 2", "return '10' / '4'",
		"return '0x10' + 0", "return ' 7 ' + 1", "return '010' + 0", "return '0b11' + 0", "return '1_0' + 0",
		"return ' 0x1f ' * 1", "return '1e2' / 4", "return '5' % '3'", "return '2' ^ '0.5'", "local s = '12a' return s + 1",
		"local s = '12a' return 1 - s", "local t = {} return '1' + t", "return 7 % '-3'", "return '3' % 2", "return '2' ^ '3'", "return -'2'",
		"local s = 0 for i = redis.call('get','n'), 7 do s = s + i end return s",
		"local s = 0 for i = 1, redis.call('get','n') do s = s + i end return s",
		"local s = 0 for i = 10, 1, '-3' do s = s + i end return s",
		"local s = '' for i = 1, 3 do s = s .. i end return s",
		"return #tostring(12345)", "return math.floor('3.7')", "return math.max('3', 10)",
		"return string.rep('ab', '3')", "return ('x'):rep(3)", "return string.len(12345)",
		"return select('#', unpack({1,2,3}))", "return select('#', unpack({}, 1, 100))",
		"local t = {} for i=1,7999 do t[i]=i end return select('#', unpack(t))",
		"local t = {} for i=1,10000 do t[i]=i end return select('#', unpack(t))",
		"return {unpack({1,2,3}, 2)}", "return {unpack({1,2,3}, -1, 1)}",
		"return type(arg)", "return select('#', ...)", "local function f(...) return arg.n end return f(1, 2)",
		"return math.fmod(7, 3)", "return math.mod(7, 3)", "return 7 % -3", "return -7 % 3", "return 5 // 2",
		"return tostring(2^31)", "return 10 == '10'", "return math.huge == 1/0",
		"return string.format('%d', 3.99)", "return string.format('%d', -3.99)", "return string.format('%5.2f|%-5d|%05d', 3.14159, 42, 7)",
		"return string.format('%s %s %s', 1, 1.5, 1/3)", "return string.format('%.17g', 0.1)", "return string.format('%g', 1e20)",
		"return string.format('%x %X %o', 255, 255, 8)", "return string.format('%x', -1)", "return string.format('%c%c', 72, 105)",
		"return string.format('%q', 'a\\nb\"c\\0')", "return string.format('%5s|%-5s|', 'ab', 'cd')", "return string.format('%.2s', 'abcdef')",
		"return string.format('%%')", "return string.format('%d', '12')", "return string.format('%d', 'x')",
		"return string.format('%y', 1)", "return string.format('%d')", "return string.format('%e', 12345.678)",
		"return string.format('%10.3e|%G', 0.000123, 1e-10)", "return string.format('%i', 42)", "return string.format('%u', 42)",
		"return string.format('%.3f', 1/0)", "return string.format('%5.1f', -1/0)", "return string.format('%123d', 1)",
		"return string.format('%s', true)", "return string.format('%s', nil)", "return string.format('%s', {})",
		"return string.format('%-+ #0d', 1)", "return string.format('%+d % d', 5, 5)", "return string.format('%#x %#o', 255, 8)",
		"return string.format('%s', string.rep('x', 150))",
	)
}

// Lua 5.1 reads numeric strings with strtod (tonumber's rules: decimal,
// hex with glibc's hex floats, surrounding spaces) in arithmetic, unary
// minus, comparisons and every library argument read as a number.
func TestScriptLua51Coercion(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return -'010'", "return tostring(-'010')", "return -' 5 '", "return -'0x10'", "return -'1e2'", "return tostring(-'1.5')",
		"return -'abc'", "local s = 'x' return -s", "return -''", "return tostring(-'-0')", "return -'0b11'", "return -'1_0'",
		"return tostring(-' 0x1F ')", "return tostring(-'inf')", "return tostring(-'nan')", "return -'5x'",
		"return '010' * 1", "return '010' - 0", "return '010' / 1", "return '010' % 7", "return '010' ^ 1",
		"return ' 010 ' + 0", "return '0x' + 0", "return '0x10.8' + 0", "return '1e+2' + 0", "return '1E-2' * 100",
		"return ' \\t12\\n' + 0", "return '12 3' + 0", "return '+5' + 0", "return '- 5' + 0", "return '.5' + 0", "return '5.' + 0",
		"return 10 == '10'", "return '10' == '010'", "return '10' < '9'", "return 10 < '9'", "return '10' <= 9", "return '1e1' == 10",
		"return tostring(tonumber('0x'))", "return tonumber('0X1A')", "return tonumber(' -0x10 ')", "return tonumber('1e+')",
		"return tonumber('0x1p4')", "return tonumber('1e2', 10)", "return tonumber('010', 10)", "return tonumber(' 10 ', 16)",
		"return math.floor(-'010')", "return string.rep('a', '010')", "return ('010'):rep(2)", "return math.abs('-010')",
		"local s = 0 for i = '010', 12 do s = s + i end return s", "return string.sub('abcdefghijkl', '010')",
		"return {string.byte('abcdefghijkl', '010')}", "return string.char('065')", "return string.format('%d', '010')",
		"return string.format('%d', '0x10')", "return string.format('%5.1f', ' 010 ')", "return tostring(-'-010')",
		"return 1 + -'3'", "local t = {['010']=1} return t[10]", "return #('010' + 0 .. '')", "return ('0x10' + 0) .. ''",
		"return '0x10.8' + 0", "return tonumber('0x1p4')", "return tonumber('0x.8') * 4", "return tonumber('0x1P-1') * 4",
		"return tonumber('0x1p')", "return tonumber('0xp1')", "return tonumber('0x1.8p1')", "return tonumber('-0x1p4')",
		"return tonumber('0x10000000000000000') == 2^64", "return tonumber('0xg')", "return tonumber('0x 1')",
		"return math.abs('-010')", "return math.max('010', 9)", "return math.floor('0x10')", "return math.random('010') <= 10",
		"return select('02', 'a', 'b', 'c')", "return select('#x', 'a', 'b')", "return select('x', 1)",
		"return table.concat({1,2,3,4,5,6,7,8,9,10,11}, ',', '010')", "return table.concat({'a','b'}, '010')",
		"local t = {1,2,3} table.insert(t, '02', 'x') return t", "local t = {} table.insert(t, '010') return t",
		"local t = {1,2,3} return table.remove(t, '01')", "return {unpack({1,2,3}, '02')}", "return tonumber('10', '010')",
		"return string.format('%x', '0x1p4')", "return ('x'):rep('0x2')", "return 1e2", "return 0x10", "return -0x10",
		"return bit.band('010', 15)", "return bit.tohex('0x10')",
		// Numerals in the source are read by the same strtod.
		"return 010", "return 0x1p4", "return 0X10", "return 1e+2", "return .5e1", "return 0xA.8", "return 0x", "return 1e",
		"return 0x1P-1 * 4", "return 08", "return 1_0", "return 0b11", "return 3..2", "return 0x10 + '0x10'",
		"return -0x10 .. ''", "return 2^-'1' * 4", "return '0x10' == 16", "return ('5' + 0) == 5",
		"local a = '3' local b = '4' return a * b", "return math.floor(' 0x1F ')", "return ('  12  ' + 0)",
		// tonumber with a base reads as strtoul does.
		"return tonumber('0x10', 16)", "return tonumber('1e1', 16)", "return tonumber(' 10 ', 2)", "return tostring(tonumber('-10', 16))",
		"return tonumber('0x10', 10)", "return tonumber('10', 36)", "return tonumber('zz', 36)", "return tonumber('ZZ', 36)",
		"return tonumber('', 16)", "return tonumber(' ', 16)", "return tonumber('1 0', 16)", "return tonumber('10', 1)",
		"return tonumber('10', 37)", "return tonumber(10, 16)", "return tonumber('+10', 16)", "return tostring(tonumber('ffffffffffffffff', 16))",
		"return tostring(tonumber('fffffffffffffffff', 16))", "return tonumber('0x', 16)", "return tonumber('08', 8)", "return tonumber('7.5', 8)",
		"return tonumber(' 0x10 ')", "return tonumber('0x10 x')", "return tonumber('\\t0x1A\\n')", "return tostring(tonumber('0x7fffffffffffffff'))",
		"return tostring(tonumber('1e309'))", "return tostring(tonumber('-0'))", "return tostring(-tonumber('0'))", "return tostring(tonumber('0x-1'))",
		"return tostring(tonumber('1.'))", "return tostring(tonumber('.'))", "return tostring(tonumber('-.5'))", "return tostring(tonumber('+.5e1'))",
		"return tostring(tonumber('infinity'))", "return tostring(tonumber('-INF'))", "return tostring(tonumber('nan'))", "return tostring(tonumber('nan(123)'))",
		"return tostring(tonumber('-nan'))", "return tostring(-(0/0))", "return tostring(tonumber(' NaN '))", "return tonumber('nan(')",
		"return tonumber('nan(a-b)')", "return tostring(tonumber('-0x10', 16))", "return tonumber(' -0x', 16)",
		"return tostring(tonumber('0x1.8'))", "return tostring(tonumber('1e-400'))", "return tostring(tonumber('4.9e-324'))",
		"return tostring('5' + '-0')", "return tostring(0 * -1)", "return tostring(-0)", "return tostring(-'0')",
	)
}

func TestScriptRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HSET", "h", "f", "v")
	p.Do("SET", "n", "1")
	scripts := []string{
		"return true", "return false", "return nil", "return {double=1.5}", "return {double=0/0 > 0 and 1 or 2}",
		"return {big_number='1234'}", "return {map={a=1}}", "return {set={x=true}}",
		"return {verbatim_string={format='txt',string='hi'}}",
		"redis.setresp(3) return true", "redis.setresp(3) return false",
		"redis.setresp(3) return redis.call('hgetall','h')",
		"redis.setresp(3) return redis.call('hgetall','h').map.f",
		"redis.setresp(3) return type(redis.call('get','nosuch'))",
		"redis.setresp(3) return redis.call('get','nosuch') == nil",
		"return type(redis.call('get','nosuch'))",
		"redis.setresp(3) local r = redis.call('hgetall','h') return {map=r.map}",
		"redis.setresp(2) return redis.call('hgetall','h')",
		"redis.setresp(3) return redis.call('set','n','2')",
		"redis.setresp(3) return redis.pcall('nosuch')",
		"return {1, true, false, {map={k={set={a=true}}}}}",
		"redis.setresp(3) return {1, true, false}",
		"return redis.call('ping')",
	}
	for _, s := range scripts {
		p.Do("EVAL", s, "0")
	}
	p.Do("HELLO", "3")
	for _, s := range scripts {
		p.Do("EVAL", s, "0")
	}
	p.Do("EVAL", "return {err='x'}", "0")
	p.Do("EVAL", "error('boom')", "0")
	p.Do("HELLO", "2")
}

func TestScriptMisc(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "100")
	evalAll(p,
		"return redis.call('ttl', 'k')",
		"local t = {} for i=1,100 do t[i] = i end return t",
		"return string.rep('x', 10000)",
		"local a, b = pcall(error, {err='E x'}) return {tostring(a), b}",
		"local ok, err = pcall(function() error('inner') end) return err",
		"local ok, err = pcall(function() error({code=1}) end) return type(err)",
		"return select(2, xpcall(function() error('x') end, function(e) return 'handled: ' .. e end))",
		"return select(2, xpcall(function() local t = {} return t.a.b end, function(e) return 'handled: ' .. e end))",
		"return {xpcall(function() return 1, 2 end, print)}",
		"local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y, coroutine.status(co)}",
		"return loadstring('return 1 + 1')()",
		"local f = loadstring('x = 1') local ok, e = pcall(f) return tostring(ok)",
		"return type(loadstring('syntax error here'))",
		"local t = {3,1,2} table.sort(t) return t",
		"local t = {3,1,2} table.sort(t, function(a,b) return a > b end) return t",
		"return table.concat({1,2,3}, ',')",
		"local t = {1,2,3} table.remove(t, 1) table.insert(t, 1, 9) return t",
		"return {string.find('hello world', 'o w')}", "return {string.match('key:123', '(%a+):(%d+)')}",
		"return (string.gsub('hello', 'l', 'L'))", "return string.upper('abc') .. string.lower('DEF')",
		"return {string.byte('ABC', 1, 3)}", "return string.char(72, 73)", "return string.sub('hello', 2, -2)",
		"return string.reverse('abc')", "return #'abc'",
		"local r = {} for w in string.gmatch('a,b,c', '[^,]+') do r[#r+1] = w end return r",
		"return math.floor(3.7) + math.ceil(3.2) + math.abs(-2) + math.max(1, 5, 3) + math.min(4, 2)",
		"return tostring(math.sqrt(2))", "return tostring(math.pi)",
		"return redis.sha1hex('hello')",
		"return {redis.call('ping', 'msg'), redis.call('echo', 'e')}",
		"return redis.call('exists', 'k', 'nosuch')",
		"return #redis.call('keys', '*')",
		"return redis.call('incr', 'k')",
		"return redis.pcall('incr', 'k')",
		"return redis.call('incr', 'k')",
	)
	p.Do("GET", "k")
}

func TestScriptCmsgpack(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return cmsgpack.pack(1, -1, 200, -200, 70000, 2^40, -2^40, 1.5, 0.1, 'abc', string.rep('x', 40), string.rep('y',300), true, false, nil)",
		"return cmsgpack.pack({1,2,3}, {}, {a=1}, {1,2,nil,4}, {[1]=1,[3]=3})",
		"return cmsgpack.pack(string.rep('z', 70000)):sub(1,6)",
		"local t = {} for i=1,20 do t[i]=i end return cmsgpack.pack(t):sub(1,4)",
		"return cmsgpack.pack(2^63, -2^63, 2^64, 1e300, -0.0, 0/0, -33, -129, -32769, -2^31-1, 65536, 2^32)",
		"return cmsgpack.pack({{{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}}})",
		"return cmsgpack.pack()", "return cmsgpack.pack(function() end)",
		"return {cmsgpack.unpack(cmsgpack.pack(1,'a',{1,2},{x=1}, true, 1.5, -7, 2^40, -2^40, 0.1))}",
		"return cmsgpack.unpack('')", "return cmsgpack.unpack('\\145')", "return cmsgpack.unpack('\\193')",
		"return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}",
		"return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1), 1)}",
		"return {cmsgpack.unpack_one(cmsgpack.pack(1), 5)}", "return {cmsgpack.unpack_limit(cmsgpack.pack(1), -1)}",
		"return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}",
		"return type(cmsgpack.unpack(cmsgpack.pack(nil)))",
		"local t = cmsgpack.unpack(cmsgpack.pack({1,nil,3})) return {t[1], t[2], t[3]}",
		"return cmsgpack.unpack('\\196\\3abc')", "return cmsgpack.unpack('\\208\\128')",
		"return cmsgpack.unpack('\\207\\0\\0\\0\\0\\0\\0\\1\\0')",
	)
}

func TestScriptCommandGetkeys(t *testing.T) {
	p := NewPair(t)
	for _, c := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro"} {
		p.Do("COMMAND", "GETKEYS", c, "return 1", "2", "k1", "k2", "a")
		p.Do("COMMAND", "GETKEYS", c, "return 1", "1", "k1")
	}
}

// waitBusy polls both servers from p until each answers -BUSY.
func waitBusy(t *testing.T, p *Pair) {
	t.Helper()
	if !busyBoth(t, p, time.Now().Add(5*time.Second)) {
		t.Fatal("a server never became busy")
	}
}

// busyBoth polls both servers from p until each answers -BUSY, and reports
// whether both did before deadline.
func busyBoth(t *testing.T, p *Pair, deadline time.Time) bool {
	t.Helper()
	for _, c := range []*Conn{p.L, p.R} {
		err := testutil.Poll(time.Until(deadline), func() error {
			if v := c.MustDo(t, "GET", "probe"); v.Kind != '-' || !strings.HasPrefix(v.Str, "BUSY") {
				return fmt.Errorf("%s not busy by the deadline (last %v)", c.Addr, v)
			}
			return nil
		})
		if err != nil {
			t.Log(err)
			return false
		}
	}
	return true
}

// unbusy kills whatever script or function still runs on either server
// and waits until both answer again (a failed busy test must not leave a
// spinning script behind for the tests after it).
func unbusy(t *testing.T, p *Pair) {
	for _, c := range []*Conn{p.L, p.R} {
		// Best effort: the test has failed already if this does not end.
		testutil.Poll(30*time.Second, func() error {
			v, err := c.Do("PING")
			if err != nil || v.Kind != '-' || !strings.HasPrefix(v.Str, "BUSY") {
				return nil
			}
			c.Do("SCRIPT", "KILL")
			c.Do("FUNCTION", "KILL")
			return errors.New(v.Str)
		})
		c.Do("CONFIG", "SET", "busy-reply-threshold", "5000")
	}
}

func TestScriptBusyKill(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "busy-reply-threshold", "100")
	// If the test stops while a script spins, kill it, or every later
	// test would get -BUSY.
	t.Cleanup(func() { unbusy(t, p) })
	defer p.Do("CONFIG", "SET", "busy-reply-threshold", "5000")
	a := Connect(t)
	a.Send("EVAL", "local i = 0 while true do i = i + 1 end", "0")
	waitBusy(t, p)
	p.Do("GET", "k")
	p.Do("PING")
	p.Do("FUNCTION", "KILL")
	p.Do("SCRIPT", "KILL")
	a.Receive()
	p.Do("PING")
	p.Do("SCRIPT", "KILL")

	// A killed script cannot save itself with pcall.
	a.Send("EVAL", "while true do pcall(function() while true do end end) end", "0")
	waitBusy(t, p)
	p.Do("SCRIPT", "KILL")
	a.Receive()

	// Functions: FUNCTION KILL, and FUNCTION STATS shows the running one.
	p.Do("FUNCTION", "LOAD", "REPLACE", "#!lua name=busylib\nredis.register_function('spin', function() while true do end end)")
	a.Send("FCALL", "spin", "0")
	waitBusy(t, p)
	p.Do("GET", "k")
	p.Do("SCRIPT", "KILL")
	p.DoShape("FUNCTION", "STATS")
	p.Do("FUNCTION", "KILL")
	a.Receive()
	p.Do("FUNCTION", "DELETE", "busylib")

	// A script that wrote cannot be killed; it ends by itself after d.
	// Both servers start it after the test sends it, so if the kills were
	// answered less than d after that, both still ran it. On a machine too
	// slow for that the comparison would be void: run it again, longer.
	for d := 1500 * time.Millisecond; ; d *= 2 {
		start := time.Now()
		a.Send("EVAL", "redis.call('set','dirty','1') local t = redis.call('time') local start = t[1]*1000000 + t[2] "+
			"while true do local n = redis.call('time') if (n[1]*1000000 + n[2]) - start > tonumber(ARGV[1]) then break end end return 1",
			"0", strconv.FormatInt(d.Microseconds(), 10))
		var kills [][]Value
		if busyBoth(t, p, start.Add(d)) {
			for _, cmd := range []string{"SCRIPT", "FUNCTION"} {
				lv, rv := p.both([]string{cmd, "KILL"})
				kills = append(kills, []Value{lv, rv})
			}
		}
		inTime := time.Since(start) < d
		a.Receive()
		if (len(kills) == 0 || !inTime) && d < 20*time.Second {
			t.Logf("the unkillable script ended before the kills: again with %v", 2*d)
			continue
		}
		if len(kills) == 0 {
			t.Fatal("the unkillable script was never seen busy on both servers")
		}
		for i, k := range kills {
			p.check([]string{[]string{"SCRIPT", "FUNCTION"}[i], "KILL"}, k[0], k[1], Equal(k[0], k[1]))
		}
		break
	}
	p.Do("GET", "dirty")

	// The script's own pipelined commands wait for it, in order.
	a.Send("EVAL", "local i = 0 while true do i = i + 1 end", "0")
	a.Send("SET", "after", "1")
	waitBusy(t, p)
	p.Do("GET", "after")
	p.Do("SCRIPT", "KILL")
	a.Receive()
	a.Receive()
	p.Do("GET", "after")
}

func TestScriptLua51Tables(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"return #{1,nil,3}", "return #{1,2,nil}", "return #{nil,nil,3}", "local t = {} t[1]=1 t[2]=2 t[4]=4 return #t",
		"local t = {1,2,3} t[2] = nil return #t", "return table.getn({1,2,3})", "return {unpack({1,nil,3})}",
		"local n = 0 for _ in ipairs({1,2,nil,4}) do n = n + 1 end return n", "return select('#', nil, nil)",
		"return select(-1, 1, 2, 3)", "return select(2, 'a', 'b', 'c')", "return string.rep('x', -1)", "return string.rep('x', 0)",
		"return string.sub('hello', -3)", "return string.sub('hello', 0)", "return string.sub('hello', 10)", "return string.sub('hello', 2, 100)",
		"return {string.byte('abc', -1)}", "return {string.byte('abc', 10)}", "return {string.byte('')}",
		"return {string.find('a.b', '.', 1, true)}", "return {string.find('abc', 'b', -1)}", "return {string.find('abc', '')}",
		"return {string.find('abc', 'x')}", "return (string.gsub('abc', '%w', '%0%0'))", "return (string.gsub('hello world', '(%w+)', '<%1>'))",
		"return {string.gsub('abc', '', '-')}", "return (string.gsub('abc', 'b', {b='B'}))", "return (string.gsub('abc', 'b', function(x) return x:upper() end))",
		"return {string.match('2024-01-02', '(%d+)-(%d+)-(%d+)')}", "return string.match('  trim  ', '^%s*(.-)%s*$')",
		"return string.format('%5.2s|', 'abc')", "return string.format('%-10s|', 'hi')", "return string.format('[%3d]', 12345)",
		"return tostring(math.floor(-3.5))", "return tostring(math.ceil(-3.5))", "return tostring(-7 % 3)", "return tostring(7 % -3)",
		"return tostring(5.5 % 2)", "return tostring(math.fmod(-7, 3))", "return tostring(2^53 + 1)", "return tostring(-2^63)",
		"return tostring(math.max(1, 2.5))", "return tostring(math.min(-0, 0))", "return tostring(math.abs(-0))", "return tostring(1e308 * 10)",
		"return tostring(math.modf(3.7))", "return {math.modf(-3.7)}", "return {math.frexp(8)}", "return math.ldexp(1, 3)",
		"return tostring(math.log(8, 2))", "return tostring(math.log10(1000))", "return tostring(math.exp(0))", "return tostring(math.pow(2, 10))",
		"return string.len(string.format('%q', '\\1\\2'))", "return string.format('%q', 1/3)",
		"return tostring(tonumber('1e500'))", "return tostring(tonumber('-1e500'))", "return tostring(0.1 + 0.2)",
		"return tostring(100000000000000)", "return tostring(99999999999999)", "return tostring(1e14 + 0.5)", "return tostring(-123.456)",
		"return tostring(3 / 2)", "return tostring(10 / 2)", "return type(10 / 2)", "return 2^0.5 > 1.414",
		"local t = {} t[1.0] = 'a' return t[1]", "local t = {} t['1'] = 'a' return t[1]", "return next({})",
		"local t = {10,20,30} local s = 0 for i, v in ipairs(t) do s = s + i * v end return s",
		"local t = {a=1} t.a = nil return next(t)", "return rawequal('a', 'a')", "return rawequal({}, {})",
		"return #string.rep('ab', 3, ',')", "return string.rep('ab', 3, ',')", "return ('%d'):format(5)",
		"return tostring(nil) .. tostring(true) .. tostring(false)", "return tostring(1e100)", "return 1e100",
		"return string.format('%.3f', 2.0005)", "return string.format('%.0f', 0.5)", "return string.format('%.0f', 1.5)", "return string.format('%g', 0.0001)",
		"return string.format('%g', 100000)", "return string.format('%g', 1000000)", "return string.format('%.14g', 0.1)", "return string.format('%5.1g|', 123)",
		"return string.format('%o', -1)", "return string.format('%X', 3735928559)", "return string.format('%d', 2^31)", "return string.format('%d', 2^53)",
		"return string.format('%d', -2^63)", "return string.format('%d', 1e20)", "return string.format('%x', 1e20)",
		"return string.format('%c', 256 + 65)", "return string.format('%s', 0/0)", "return string.format('%d', 0/0)",
		"return string.lower('ÀBC')", "return string.upper('àbc')", "return #'héllo'",
	)
}

// Lua 5.1 visits a table's array part and then its hash nodes in slot
// order (ltable.c); lockkv rebuilds that layout (luaengine/order.go), so
// pairs, next, cjson.encode, cmsgpack.pack and map/set replies list keys
// as Redis does.
func TestScriptTableOrder(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"local t = {} t.alpha=1 t.beta=2 t.gamma=3 t.delta=4 t.epsilon=5 t.zeta=6 local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6} local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"return cjson.encode({name='x', id=1, tags='a', owner='me', ttl=30, kind='lock'})",
		"local t = {} t.name='x' t.id=1 t.tags='a' t.owner='me' t.ttl=30 t.kind='lock' return cjson.encode(t)",
		"return cmsgpack.pack({a=1, b=2, c=3, d=4, e=5})",
		"local t = {} for i = 1, 100 do t['key' .. i] = i end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 1, 100 do t['key' .. i] = i end return cjson.encode(t)",
		"local t = {} t.a=1 t.b=2 t.c=3 t.d=4 t.b=nil local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {1, 2, 3, x='a', y='b'} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t.x='a' t[1]=1 t[2]=2 t.y='b' t[3]=3 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t[10]=1 t[20]=2 t[30]=3 t[-1]=4 t[0.5]=5 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} for i = 1, 50 do t[i * 7] = i end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {[true]=1, [false]=2, x=3} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} local k = string.rep('a', 40) t[k .. '1'] = 1 t[k .. '2'] = 2 t[k .. '3'] = 3 t[k..'4'] = 4 t['b' .. k] = 5 local r = {} for kk in pairs(t) do r[#r+1]=kk:sub(-3) end return r",
		"local t = {} local r = {} for i = 1, 30 do t[tostring(i)] = i end for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 0, 7 do t[string.rep('a', 1) .. string.char(65 + i) .. string.rep('b', 62)] = i end local r = {} for k in pairs(t) do r[#r+1]=k:sub(1, 2) end return r",
		"local t = {} for i = 0, 7 do t[string.rep('b', 62) .. string.char(65 + i) .. 'c'] = i end local r = {} for k in pairs(t) do r[#r+1]=k:sub(63) end return r",
		"local t = {} for i = 1, 40 do t[-i] = i t[2^40 + i] = i end local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} for i = 200, 1, -1 do t[i] = i end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 1, 20 do t['k' .. i] = i end for i = 1, 20, 3 do t['k' .. i] = nil end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 1, 20 do t['k' .. i] = i end for k in pairs(t) do if #k == 3 then t[k] = nil end end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {a=1, b=2, c=3} t.b = nil t.b = 5 local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {x=1, y=2} local k, v = next(t) local k2 = next(t, k) return {k, k2, next(t, k2)}",
		"local t = {x=1} return next(t, 'nope')", "return next({}, 1)", "local t = {1,2,3} return {next(t, 3)}",
		"local function f() return 1, 2, 3 end local t = {f(), f(), x=1, y=2, f()} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {one=1, two=2, three=3, four=4, five=5, six=6, seven=7, eight=8, nine=9, ten=10, eleven=11, twelve=12, thirteen=13, fourteen=14, fifteen=15, sixteen=16, seventeen=17, eighteen=18} return cjson.encode(t)",
		"local t = setmetatable({p=1, q=2, r=3, s=4, u=5}, {}) return cjson.encode(t)",
		"return getmetatable({a=1})", "local t = {a=1} return rawequal(getmetatable(t), nil)",
		"return cjson.encode(cjson.decode('{\"name\":\"x\",\"id\":1,\"tags\":2,\"owner\":3,\"ttl\":30,\"kind\":4}'))",
		"return cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack({alpha=1, beta=2, gamma=3, delta=4, epsilon=5})))",
		"local t = {} for i = 1, 10 do t['f' .. i] = i end return cmsgpack.pack(t)",
		"local t = {} t[1] = 'a' t[3] = 'c' t.x = 1 t[2] = 'b' return cjson.encode(t)",
		"local n = 0 local t = {a=1, b=2, c=3, d=4, e=5} while next(t) do local k = next(t) t[k] = nil n = n + 1 end return n",
		"local r = {} table.foreach({a=1, b=2, c=3, d=4, e=5, f=6}, function(k) r[#r+1] = k end) return r",
		"local t = {} for i = 1, 40 do t['m' .. i] = i end return cmsgpack.pack(t)",
		"local t = {} for i = 1, 100 do t['k' .. i] = i end t.k7 = nil t.k50 = nil t.k7 = 'back' return cjson.encode(t)",
		"local t = {} for i = 1, 1000 do t['item:' .. i] = i end local r = {} for k in pairs(t) do r[#r+1] = k end return r",
		"local t = cjson.decode('{\"b\":1,\"a\":2,\"d\":[1,2],\"c\":{\"y\":1,\"x\":2,\"z\":3}}') return cjson.encode(t)",
		// Deletions, then new keys.
		"local t = {a=1, b=2, c=3, d=4} t.b = nil t.e = 5 local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {a=1, b=2, c=3, d=4} t['b'] = nil t.e = 5 t.f = 6 return cjson.encode(t)",
		"local t = {} for i = 1, 20 do t['k' .. i] = i end for i = 1, 20, 2 do local k = 'k' .. i t[k] = nil end for i = 21, 40 do t['k' .. i] = i end local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 1, 8 do t['x' .. i] = i end t.x3 = nil t.x5 = nil t.y1 = 1 t.y2 = 2 t.y3 = 3 return cjson.encode(t)",
		"local t = {} t.a = 1 t.a = nil t.b = 2 t.c = 3 t.a = 4 local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {} for i = 1, 100 do t['f' .. i] = i if i % 3 == 0 then local k = 'f' .. (i - 1) t[k] = nil end end return cjson.encode(t)",
		"local t = {p=1, q=2, r=3, s=4, u=5, v=6, w=7} for k in pairs(t) do t[k] = nil end t.z = 1 t.y = 2 t.x = 3 local r = {} for k in pairs(t) do r[#r+1]=k end return r",
		"local t = {p=1, q=2, r=3} t.q = nil t.q = nil t.n = 1 return cjson.encode(t)",
		"local t = {} t[1.5] = 1 t[2.5] = 2 t[1.5] = nil t[3.5] = 3 t[4.5] = 4 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {a=1, b=2} local mt = {} setmetatable(t, mt) t.a = nil t.c = 3 return {getmetatable(t) == mt, cjson.encode(t)}",
		"local t = {a=1, b=2, c=3, d=4} t.b = nil return {getmetatable(t) == nil, next(t, 'b') ~= nil}",
		"local t = {a=1, b=2, c=3} local n = 0 for k in pairs(t) do t[k] = nil n = n + 1 end return {n, next(t)}",
		// A nil stored under a key the table does not hold takes a node.
		"local t = {} for i = 1, 6 do t['a' .. i] = i end t.nothere = nil t.b1 = 1 t.b2 = 2 local r = {} for k in pairs(t) do r[#r+1] = k end return r",
		"local t = {} for i = 1, 7 do t['a' .. i] = i end t.ghost = nil t.ghost = nil t.b1 = 1 local r = {} for k in pairs(t) do r[#r+1] = k end return r",
		// A nil stored under a key the table does not hold takes a node.
		"local t = {} for i = 1, 6 do t['a' .. i] = i end t.nothere = nil t.b1 = 1 t.b2 = 2 local r = {} for k in pairs(t) do r[#r+1] = k end return r",
		"local t = {} for i = 1, 7 do t['a' .. i] = i end t.ghost = nil t.ghost = nil t.b1 = 1 local r = {} for k in pairs(t) do r[#r+1] = k end return r",
		// Traversals around deletions.
		"local t = {} for i = 1, 4 do t['a' .. i] = i end local r = {} for k in pairs(t) do r[#r+1] = k end t.zz = nil for k in pairs(t) do r[#r+1] = k end t.b = 1 for k in pairs(t) do r[#r+1] = k end return r",
		"local t = {} for i = 1, 8 do t['a' .. i] = i end local r = {} for k in pairs(t) do r[#r+1] = k if k == 'a3' then t.a5 = nil end end return r",
		"local t = {} for i = 1, 8 do t['a' .. i] = i end local r = {} for k in pairs(t) do r[#r+1] = k t[k] = nil end t.x = 1 t.y = 2 for k in pairs(t) do r[#r+1] = k end return r",
		// Errors of a deletion are the assignment's own.
		"local x x.k = nil", "local t = {} local k t[k] = nil return 1", "string.x = nil", "local s = 'str' s.k = nil",
		"local t = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, 'set:' .. tostring(v)) end}) t.a = nil return t.a",
		// Integer keys set among other keys: when each was set shapes
		// the layout (luaengine logs every store gopher-lua does not
		// record).
		"local t = {} t.x='a' t[1]=1 t.y='b' t[2]=2 t.z='c' t[3]=3 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t.a=1 t[2]=1 t.b=1 t[1]=1 t.c=1 t[4]=1 t.d=1 t[3]=1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t[4]=1 t[3]=1 t.q=1 t[1]=1 t[6]=1 t[2]=nil local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} t[10]=1 t[9]=1 t[8]=1 t[7]=1 t[6]=1 t[5]=1 t[4]=1 t[3]=1 t[2]=1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} for i = 1, 5 do table.insert(t, i) end t.x = 1 table.insert(t, 1, 0) t[10] = 1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} t[1] = 1 t.x = {} t.x[3] = 1 t.x[1] = 1 return #t.x",
		"local t = {} t[true] = 1 t[false] = nil t[1] = 1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t[2^53] = 1 t[1] = 1 t[-1] = 1 t[1e300] = 1 t.x=1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} local k = 'k' for i = 1, 12 do t[k .. i] = i t[i] = i end local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		// Constructors with keyed fields of any keys store them in order,
		// list items last.
		"local t = {[3]=1,[1]=2,x=3,[2]=4} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {[5]=1,[1]=2,x=3,[2]=4, 7, 8} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {[2]=1, 1} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {x=1, [1]=nil, y=2} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {[1]=1, [2]=2, [3]=nil, [4]=4} return #t",
		"local function f(...) local t = {[2]=1, ...} return #t end return f(5, 6, nil)",
		"local t = {[10]=1, [9]=2, [8]=3, a=1, b=2, [1.5]=3, [7]=4} t[6] = 5 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		// Deletions by any means: rawset, a nil computed at run time,
		// multiple assignment, table.remove.
		"local t = {a=1,b=2,c=3,d=4} rawset(t,'b',nil) t.e=5 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {a=1,b=2,c=3,d=4} local v t.b = v t.e=5 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {a=1,b=2,c=3,d=4} t.b, t.c = nil, nil t.e=5 t.f=6 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} local f = function() return nil end t.a = 1 t.b = 2 t.a = f() t.c = 3 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {1,2,3,4,5} table.remove(t, 2) t.x = 1 t[7] = 1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} for i=1,10 do t[i]=i end t.x=1 table.remove(t) table.remove(t) t[12]=1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} for i = 1, 20 do t['k'..i] = i end for i = 1, 20, 2 do rawset(t, 'k'..i, nil) end for i = 21, 30 do t['k'..i] = i end local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} for i = 1, 200 do t['x'] = i t['x'] = nil end t.y = 1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} for i = 1, 300 do t['x'..(i%7)] = i t['x'..((i*3)%7)] = nil end local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {a=1, b=2, c=3, d=4, e=5} for k in pairs(t) do t[k] = nil end t.z = 1 t[1] = 1 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {} t[1]=1 t[2]=2 t[3]=3 local r = {} for k in pairs(t) do r[#r+1]=k if k == 2 then t[2] = nil end end return r",
		"local t = {} t.a = 1 t.a = nil return {next(t, 'a')}", "local t = {} t[5] = 1 t[5] = nil return {next(t, 5)}",
		"local t = {} local u = {} t[u] = 1 t[u] = nil t[u] = 2 local n = 0 for k in pairs(t) do n = n + 1 end return n",
		"local t = {a=1} setmetatable(t, nil) t.b = 2 t[1] = 1 t.a = nil t.c = 3 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		// Stores into a field of a call's result or an index by a call:
		// the table is read once, before the key, and named in errors as
		// Lua names it.
		"local function f() return nil end f().x = 1",
		"local function f() return nil end f()[1] = 1",
		"local function f() return nil end f().x = nil",
		"local t = {} local function g() return 1 end t[g()].y = 1",
		"local t = {} local function g() return 'a' end t[g()][1] = 1",
		"local a = {} local function f() return a end f().x = 1 f()[2] = 1 f().y = 2 f()[1] = 1 f().x = nil local r = {} for k in pairs(a) do r[#r+1] = tostring(k) end return {r, #a}",
		"local t = {} local u = t t.x, t = 1, {} return {u.x, t.x}",
		"local t = {} local u = t t[1], t = 1, {} return {u[1], t[1]}",
		"local a = {b = {}} local function f() return a end f().b[3] = 3 f().b.x = 1 f().b[1] = 1 f().b[3] = nil local r = {} for k in pairs(a.b) do r[#r+1] = tostring(k) end return {r, #a.b}",
		"local t = {{}, {}} for i = 1, 2 do t[i][3] = 1 t[i].k = 1 t[i][1] = 1 t[i][3] = nil end local r = {} for k in pairs(t[2]) do r[#r+1] = tostring(k) end return {r, #t[2]}",
		"local x = {} (x)[1] = nil return 1",
		"local t = setmetatable({}, {__index = function() return nil end}) local function f() return t end f().x.y = 1",
		// More than 50 list items with keyed fields right after the 50th:
		// gopher-lua stores those items a second time from registers the
		// field may reuse; luaengine stores each item as a field of its
		// index instead.
		"local function f() return 7 end local t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, x=f(), 51, 52} return {t[1], t[2], t[50], t[51], t[52], t.x}",
		"local function f() return 7 end local t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, [-1]=f(), [60]=2, 51, 52} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return {t[1], t[2], t[50], t[51], t[52], r}",
		"local t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, k=1, [0.5]=2, 101} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return r",
		"local t = {55, 56, 51, 78, 28, k12=7, 35, 45, [96]=3, 39, 19, 65, 49, 48, 58, 10, 40, 70, 29, 94, 23, 88, 34, [276]=5, 62, 81, 93, 24, [263]=2, 17, 15, 90, 12, 32, 92, 61, 43, 7, 16, 75, [239]=nil, 54, 86, 47, 20, 6, 22, 18, 44, 13, 97, 74, 100, 27, 91, 46, 99, 98, 73, 83, [-5]=8, 63, 69, 85, 3, 72, 50, 87, [156]=4, 52, 14, [98]=1, 96, 37, 66, 89, 41, 33, [22]=nil, 71, 53, 36, 59, 11, 1, 64, 38, 82, 30, 67, 26, 76, 57, 42, 60, 4, 77, 31, 25, 5, 8, 9, 68, 2, 80, 21, 84, 79, 95} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r",
		"local t = {67, 93, 70, 13, 97, 35, 39, 43, 85, 8, 88, 28, 44, 86, 82, 10, 38, 41, 1, 46, 83, 55, 37, 96, 23, 84, 22, 95, 56, 53, 45, 65, 6, 57, [107]=0, 90, 64, 61, 3, 4, 16, 29, 27, 49, 78, k7=1, 99, 72, 92, 58, 52, 87, 42, 36, 68, 15, 9, 98, 47, 60, 12, 34, 19, 63, 75, 69, 51, 31, 33, 66, 5, 73, 14, 7, 54, 11, 94, 91, 26, 71, 89, 21, 25, 32, 79, 30, 40, 20, 81, 24, 50, 18, 74, 62, 76, 17, 59, 80, 100, 48, 77, 2} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r",
		"local t = {19, 32, 50, 26, 46, 3, 42, 18, 14, 43, 21, [243]=0, 11, 24, 13, [-3]=1, 51, 7, [196]=4, 10, 12, 1, 9, 28, 48, 36, 49, 16, 4, 23, [7]=5, 15, 37, 31, 40, 20, 2, 33, 34, [-0]=2, 35, 44, 29, 30, 38, 45, 25, 22, 47, 27, 17, 8, 41, [294]=nil, 6, 5, 39} t[82] = 1 t.zz = 2 t[54] = nil local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r",
		"local t = {10, [8.5]=1, 42, 35, 26, 6, 47, 17, 28, 16, 24, 50, 51, 19, 11, 37, 12, 36, 22, 30, 4, 48, 33, 43, 8, 46, 49, 1, 7, 15, 13, 9, 2, 20, 23, 38, 39, [21]=0, 3, 5, 45, [58]=nil, 40, 21, 44, 32, 34, 41, 25, 27, 14, 18, 31, 29} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r",
		"local t = {102, 41, 111, 116, 17, k5=1, 56, 119, 90, 79, 84, 14, 24, 106, 74, 48, 91, 50, 10, 51, 120, 86, 118, 117, 47, 25, 108, 73, 78, 81, 114, 46, 13, 7, 21, 60, 42, 115, [105]=9, 113, [64]=10, 31, 16, 110, 58, 76, 30, 92, 109, [233]=4, [292]=6, 6, 32, 8, 37, 52, 62, 107, 59, 34, 3, [-4]=0, 2, 77, 1, [4]=5, 15, 53, 26, 94, 35, 105, 70, 19, 39, 27, 49, 40, 33, 85, 66, 98, 22, 82, 97, 38, 72, [10.5]=8, 95, 29, 12, 96, 75, 64, [115]=2, 89, 87, 100, 93, 67, 20, 61, 18, 101, 88, 43, 69, [200]=11, [199]=3, 103, 55, 9, 112, 104, 28, 4, 63, 36, 99, 54, 71, 44, 57, k16=7, 11, 65, 45, 5, 68, 83, 80, 23} local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r",
		// cmsgpack.unpack stores as lua_settable does, nils and integer
		// map keys included.
		"local t = cmsgpack.unpack(cmsgpack.pack({1, 2, 3})) t[5] = 5 t[4] = 4 t[5] = nil return #t",
		"local t = cmsgpack.unpack('\\147\\1\\192\\3') local r = {} for k in pairs(t) do r[#r+1] = k end return {r, #t}",
		"local t = cmsgpack.unpack('\\149\\192\\192\\192\\192\\5') local r = {} for k in pairs(t) do r[#r+1] = k end return {r, #t}",
		"local t = cmsgpack.unpack('\\132\\3\\1\\161x\\2\\1\\3\\2\\4') local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return {r, #t}",
		"local t = cmsgpack.unpack('\\134\\5\\1\\161a\\2\\2\\3\\161b\\4\\1\\5\\4\\6') local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return {r, #t}",
		"local t = cmsgpack.unpack(cmsgpack.pack({[3]='c', x=1, [1]='a', [2]='b', y=2})) local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return {r, #t}",
		"return cmsgpack.pack(cmsgpack.unpack('\\134\\5\\1\\161a\\2\\2\\3\\161b\\4\\1\\5\\4\\6'))",
		// Keys set after a constructor returned, keys stored twice by one,
		// a constructor closing with a call; what the order shows through.
		"local t = {1,['k5']=2,['user:8:f']=3,['user:10:f']=4} t['user:19:f'] = 4 t[2.5] = 5 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {[74]=9, [115]=3, k8=10, [88]=7, [63]=5, [39]=1, [46]=2, [-5]=0, [66]=6, [88]=nil, [10.5]=8} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local function f() return 1, nil, 3 end local t = {1, k9=0, 3, k3=1, 2, f()} local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} t.b = 1 t[1] = 'x' t.a = 2 t[3] = 'y' return cmsgpack.pack(t)",
		"local t = {} t[2] = 'x' t.a = 1 t[1] = 'y' return cjson.encode(t)",
		"local t = {} t[3] = 'x' t[1] = 'y' t[2] = 'z' return cjson.encode(t)",
		"local t = {} for i = 10, 1, -1 do t[i] = i end t.n = 10 return cmsgpack.pack(t)",
		"local t = {} for i = 1, 10 do t[i] = i end for i = 1, 10, 2 do table.remove(t, 1) end t.x = 1 return cjson.encode(t)",
		"redis.setresp(3) local m = {} m[3] = 'c' m.x = 1 m[1] = 'a' m[2] = nil return {map=m}",
		"local t = {} t[1] = 1 t[2] = 2 local mt = {__index = function() return 0 end} setmetatable(t, mt) t[4] = 4 t[3] = 3 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local q = {} local head, tail = 1, 0 for i = 1, 50 do tail = tail + 1 q[tail] = i if i % 3 == 0 then q[head] = nil head = head + 1 end end q.meta = 1 local r = {} for k in pairs(q) do r[#r+1]=tostring(k) end return {r, #q}",
		"local t = {} local keys = {'a', 1, 'b', 2, 3, 'c', 5, 'd'} for i, k in ipairs(keys) do t[k] = i end for i = #keys, 1, -2 do t[keys[i]] = nil end local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		"local t = {} function t.a() end t[1] = 1 function t.b() end t[2] = 2 local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return r",
		"local t = {n = 0} for i = 1, 5 do t.n = t.n + 1 t[t.n] = i end t[3] = nil local r = {} for k in pairs(t) do r[#r+1]=tostring(k) end return {r, #t}",
		// The logged stores keep Lua's order of evaluation, errors and
		// metamethods.
		"local x x[1] = 5", "local x x[1], x[2] = 5, 6", "local t = {} t.y[1] = 2", "g[1] = 1", "local t = {} t[nil] = 1",
		"local t = {} t[0/0] = 1", "local s = 'str' s[1] = 5", "string[1] = 2", "local t = {} t.x, t.y = 1, 2, error('boom')",
		"local t = setmetatable({}, {__newindex=function(t,k,v) rawset(t,k,v*2) end}) t[1]=5 t[3]=1 t.x=1 t[2]=2 local r = {} for k,v in pairs(t) do r[#r+1]=k..'='..v end return r",
		"local i = 1 local t = {} i, t[i] = i+1, 20 return {i, t[1], t[2]}",
		"local i = 1 local t = {} t[i], i = 20, i+1 return {i, t[1], t[2]}",
		"local i = 1 local t = {} local function f() i = 5 return 1 end t[i] = f() return {t[1], t[5]}",
		"local t = {} local n = 0 local function k() n = n + 1 return n end t[k()] = k() return {t[1], t[2], n}",
		"local t = {} local a, b = 1 t.x, t.y = a, b return {t.x, t.y == nil}",
		"local t = {} t[1], t[2], t[3] = (function() return 1, 2, 3 end)() return t",
	)
	p.Do("HSET", "h", "f1", "1", "f2", "2", "f3", "3", "field4", "4", "field5", "5", "x", "6")
	p.Do("EVAL", "redis.setresp(3) local m = redis.call('hgetall', KEYS[1]).map local r = {} for k in pairs(m) do r[#r+1]=k end return r", "1", "h")
	maps := []string{
		"redis.setresp(3) return {map={one=1, two=2, three=3, four=4, five=5, six=6}}",
		"redis.setresp(3) local m = {} m.one=1 m.two=2 m.three=3 m.four=4 m.five=5 m.six=6 return {map=m}",
		"return {set={a=true, b=true, c=true, d=true, e=true}}",
		"redis.setresp(3) local m = {} for i = 1, 100 do m['f' .. i] = i end return {map=m}",
	}
	evalAll(p, maps...) // RESP2: maps and sets become flat arrays
	p.Do("HELLO", "3")
	evalAll(p, maps...)
}

func TestScriptInMulti(t *testing.T) {
	p := NewPair(t)
	p.Do("MULTI")
	p.Do("EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v")
	p.Do("EVAL", "return redis.call('get', KEYS[1])", "1", "k")
	p.Do("EVALSHA", "0000000000000000000000000000000000000000", "0")
	p.Do("EVAL", "return redis.call('nosuch')", "0")
	p.Do("EXEC")
	p.Do("MULTI")
	p.Do("EVAL", "return 1")
	p.Do("EXEC")
	// WATCH sees writes made by scripts.
	p.Do("WATCH", "k")
	other := Connect(t)
	other.Do("EVAL", "return redis.call('set', KEYS[1], 'changed')", "1", "k")
	p.Do("MULTI")
	p.Do("GET", "k")
	p.Do("EXEC")
	p.Do("GET", "k")
}

func TestScriptKeyspaceEvents(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	p.Do("EVAL", "redis.call('hset', KEYS[1], 'f', 'v') redis.call('pexpire', KEYS[1], 100000) redis.call('del', KEYS[1]) return 1", "1", "h")
	for i := 0; i < 6; i++ {
		sub.Receive()
	}
	sub.NoReply(20 * time.Millisecond)
}

func TestScriptExpiryAndTypes(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "s", "1")
	p.Do("HSET", "h", "a", "1", "b", "2")
	p.Do("RPUSH", "l", "x", "y")
	p.Do("ZADD", "z", "1", "m", "2.5", "n")
	p.Do("SADD", "set", "only")
	evalAll(p,
		"return redis.call('hgetall', 'h')", "return redis.call('lrange', 'l', 0, -1)",
		"return redis.call('zrange', 'z', 0, -1, 'withscores')", "return redis.call('zscore', 'z', 'n')",
		"return redis.call('smembers', 'set')", "return redis.call('type', 'h')", "return redis.call('type', 'h').ok",
		"return redis.call('incrbyfloat', 's', '1.5')", "return redis.call('hincrbyfloat', 'h', 'a', 0.25)",
		"return redis.pcall('hget', 's', 'x')", "return redis.pcall('incr', 'h')",
		"return redis.call('exists', 's', 'h', 'l', 'nosuch')", "return redis.call('set', 'tmp', 'v', 'px', 100000)",
		"return redis.call('set', 'tmp', 'v', 'nx')", "return redis.call('set', 'tmp', 'v2', 'get')",
		"return redis.call('pexpire', 'tmp', 0)", "return redis.call('exists', 'tmp')",
		"redis.setresp(3) return redis.call('zscore', 'z', 'n')", "redis.setresp(3) return redis.call('smembers', 'set')",
		"redis.setresp(3) return redis.call('hgetall', 'h')", "redis.setresp(3) return redis.call('zrange', 'z', 0, -1, 'withscores')",
		"redis.setresp(3) return {double=redis.call('zscore', 'z', 'n').double}",
		"redis.setresp(3) return redis.call('hgetall', 'nosuch')",
	)
}

func TestScriptSyntaxErrors(t *testing.T) {
	p := NewPair(t)
	for _, s := range []string{
		"syntax error here", "return +", "return 1 2", "x =", "local = 1", "if true then", "if true return 1 end",
		"for i = 1 do end", "for i in do end", "for 1 do end", "while true", "repeat until", "function f( return 1 end",
		"return {1, 2", "return (1", "return f(1", "local t = {a = }", "return 'abc", "return \"abc\ndef\"",
		"return [[abc", "--[[ unfinished", "return 1..2", "return 0x", "return 3e", "return ...", "break",
		"local function f() return ... end", "return a.b:c", "x.y", "f() = 1", "return #", "return 1 +\n\n",
		"if x then else elseif y then end", "return [=[x]]", "return '\\300'", "local t = {[1] 2}",
		"local a b", "return not", "return function() end end", "do local x = 1", "goto done",
		"return 1 end", "x = 1 y", "return @", "return ~1", "return 1 == == 2",
		"local x <const> = 1", "return 5 // 2", "return a and or b", "f\n(1)",
	} {
		p.Do("EVAL", s, "0")
	}
	p.Do("FUNCTION", "LOAD", "#!lua name=synt\nredis.register_function('x', function() return 1 end\n")
	p.Do("FUNCTION", "LOAD", "#!lua name=synt\nredis.register_function('x', function(k, a) return ... end)")
	p.Do("FUNCTION", "LOAD", "#!lua name=synt\nlocal t = ...\nredis.register_function('y', function() return 1 end)")
	p.Do("FUNCTION", "DELETE", "synt")
}

func TestScriptBinaryAndLarge(t *testing.T) {
	p := NewPair(t)
	p.Do("EVAL", "return {KEYS[1], ARGV[1], #ARGV[1]}", "1", "k\x00ey", "v\x00\r\nal")
	p.Do("EVAL", "redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])", "1", "bin\x00", "\x00\xff\r\n")
	p.Do("EVAL", "return redis.sha1hex(ARGV[1])", "0", "\x00\x01\x02")
	args := []string{"EVAL", "local n = 0 for i = 1, #ARGV do n = n + #ARGV[i] end return {#ARGV, n}", "0"}
	for i := 0; i < 2000; i++ {
		args = append(args, "arg")
	}
	p.Do(args...)
	p.Do("EVAL", "local t = {} for i = 1, 1000 do t[i] = {i, tostring(i)} end return t", "0")
	p.Do("EVAL", "local t = {} local c = t for i = 1, 100 do c[1] = {} c = c[1] end return t", "0")
	p.Do("EVAL", "return string.rep('x', 100000)", "0")
	p.Do("EVAL", "local t = {} for i = 1, 100 do t[i] = redis.call('incr', KEYS[1]) end return t[100]", "1", "ctr")
}

// TestScriptLua51Length: # on tables with holes is Lua 5.1's border
// (luaH_getn over the layout Lua gives the table), and so are the defaults
// of table.insert/remove/concat/getn, unpack and table.foreachi.
// TestScriptConstructorFlush: constructors gopher-lua's compiler gets
// wrong, a keyed field or a closing call or "..." right after a multiple
// of 50 (LFIELDS_PER_FLUSH) list items (luaengine splitAt): values, the
// order of evaluation and of stores, pairs order and #t.
func TestScriptConstructorFlush(t *testing.T) {
	p := NewPair(t)
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, i)
		}
		return b.String()
	}
	calls := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "f(%d)", i)
		}
		return b.String()
	}
	const pre = "local log = {} local function f(x) log[#log+1] = tostring(x) return x end local function g() log[#log+1] = 'g' return 'a', nil, 'c' end "
	const dump = " local r = {} for k, v in pairs(t) do r[#r+1] = tostring(k) .. '=' .. tostring(v) end r[#r+1] = '#' .. #t return {r, log}"
	scripts := []string{
		// Keys that are not constants after item 50 and 100.
		"local t = {" + seq(1, 50) + ", [f('k')]=f('v'), 51, 52}",
		"local k = 3 local t = {" + seq(1, 50) + ", [k]=f('x'), 51}",
		"local t = {" + seq(1, 50) + ", [f(51)]='x', [f(52)]='y', 51}",
		"local t = {" + seq(1, 100) + ", [f(101)]=f('a'), [f(2)]=f('b'), 101, 102}",
		"local t = {" + seq(1, 60) + ", [f(55)]='x', " + seq(61, 100) + ", [f(99)]='y', [f(100.5)]='z', 101}",
		"local t = {" + seq(1, 49) + ", nil, [f(50)]='x', 51}",
		"local t = {" + seq(1, 50) + ", a=f('a'), [f('b')]=f('bv'), c=3, [f(1)]=nil, 51}",
		"local t = {" + seq(1, 50) + ", [f('z')]=f(1)}",
		"local t = {" + seq(1, 50) + ", [f('k')]=g(), [f('n')]=(function() end)(), x=1, g(), 51}",
		"local t = {" + seq(1, 120) + ", [f(130)]=1, [f(-1)]=2, " + seq(121, 150) + ", k=f(3), " + seq(151, 200) + ", [f(201)]=4, " + seq(201, 250) + ", [f(300)]=5}",
		// A closing call or "..." after such a field.
		"local t = {" + seq(1, 50) + ", x=f('x'), 51, g()}",
		"local t = {" + seq(1, 50) + ", [f(52)]=f('x'), g()}",
		"local function h(...) return {" + seq(1, 50) + ", [f(1)]=f('v'), ...} end local t = h('a', 'b', nil)",
		"local function h(...) return {" + seq(1, 100) + ", k=f('v'), " + seq(101, 149) + ", ...} end local t = h('a', nil, 'c')",
		// 50 or more list items ending in a call or "...".
		"local t = {" + seq(1, 50) + ", g()}",
		"local t = {" + seq(1, 100) + ", g()}",
		"local t = {" + seq(1, 50) + ", (g())}",
		"local t = {" + seq(1, 49) + ", nil, g()}",
		"local function h(...) return {" + seq(1, 150) + ", ...} end local t = h(nil, nil)",
		"local function h(...) return {" + seq(1, 50) + ", ...} end local t = h()",
		"local t = {" + seq(1, 50) + ", k=1, (function() end)()}",
		// Nested constructors.
		"local t = {" + seq(1, 50) + ", x={" + seq(1, 50) + ", [f(1)]='in', 51}, 51, {" + seq(1, 50) + ", g()}} t = {t.x[1], t.x[51], t.x['1'], t[51][51], t[51][53], #t.x, #t[51], t[1], t[50], t[51] and 'tab'} t.n = 1",
		"local t = {" + seq(1, 50) + ", [f('a')]={" + seq(1, 50) + ", [f('b')]={" + seq(1, 50) + ", [f('c')]=f('d'), g()}, 51}} t = {#t.a, #t.a.b, t.a.b.c, t.a.b[53], t.a[51]}",
		// Side effects: items and fields evaluated left to right.
		"local t = {" + calls(1, 50) + ", [f('k')]=f('v'), " + calls(51, 100) + ", [f('k2')]=f('v2'), f(101), g()}",
		"local t = {" + calls(1, 50) + ", " + calls(51, 100) + ", f('x'), k=f('kv'), g()}",
		"local t = {f(0), k1=f('k1'), " + calls(2, 50) + ", [f('k')]=f('v'), f(51)}",
	}
	for _, s := range scripts {
		p.Do("EVAL", pre+s+dump, "0")
	}
	// Errors where OP_SETTABLE raises them: later fields not evaluated.
	evalAll(p,
		pre+"local ok, e = pcall(function() return {"+seq(1, 50)+", [f(nil)]=f(1), f(51)} end) return {tostring(ok), e, log}",
		pre+"local ok, e = pcall(function() return {"+seq(1, 50)+", [f(0/0)]=f(1), f(51)} end) return {tostring(ok), e, log}",
		pre+"local t = {"+seq(1, 50)+", [f(nil)]=1, f(51)}",
		"local t = {"+seq(1, 50)+", [0/0]=1, 51}",
		"local t = {"+seq(1, 50)+", x=nosuch(), 51}",
		"local t = {"+seq(1, 50)+", nosuch()}",
		// A constructor that failed inside pcall leaves nothing behind.
		pre+"local function bad() return {"+seq(1, 50)+", x=f('bx'), 51, [f(nil)]=2} end local t = {"+seq(1, 50)+", y=f('y'), select(2, pcall(bad)), 52, z=f('z'), g()}"+dump,
		pre+"local function bad() return {"+seq(1, 50)+", [f('k')]=f('v'), 51, nosuch()} end local t = {"+seq(1, 50)+", [f('y')]=1, xpcall(bad, function(e) return e end), 52}"+dump,
		pre+"pcall(function() return {"+seq(1, 50)+", x=1, 51, [f(nil)]=2} end) local t = {"+seq(1, 50)+", [f('y')]=1, 51, 52, g()}"+dump,
		// The order cjson and cmsgpack show.
		"return cjson.encode({"+seq(1, 50)+", [tostring(1) .. 'k']=1, 51})",
		"return cmsgpack.pack({"+seq(1, 50)+", [tonumber('60')]=1, 51})",
	)
}

func TestScriptLua51Length(t *testing.T) {
	p := NewPair(t)
	evalAll(p,
		"local t={1,2,3,4,5}; t[5]=nil; t[3]=nil; return #t",
		"local t={1,2,3,4,5}; t[3]=nil; return #t",
		"local t={1,nil,3}; return #t", "local t={nil,nil,3}; return #t", "local t={1,2,nil}; return #t",
		"local t={nil}; return #t", "local t={}; return #t", "local t={n=1, 1, 2}; t[1]=nil; return #t",
		"local t={} t[1]=1 t[2]=2 t[4]=4 return #t", "local t={} t[4]=4 t[2]=2 t[1]=1 return #t",
		"local t={} t[2]=2 t[1]=1 t[3]=3 t[5]=5 return #t", "local t={} for i=1,10 do t[i]=i end t[5]=nil return #t",
		"local t={} for i=1,10 do t[i]=i end t[10]=nil t[9]=nil t[3]=nil return #t",
		"local t={} for i=1,17 do t[i]=i end t[17]=nil t[16]=nil return #t",
		"local t={1,2,3} t[5]=5 return #t", "local t={1,2,3} t[4]=nil t[6]=6 t[7]=7 return #t",
		"local t={a=1} t[1]=1 t[2]=2 t[3]=nil t[4]=4 return #t",
		"local t={} t.x=1 t[1]=1 t[3]=3 return #t",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil table.insert(t, 'x') return t",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil table.insert(t, 1, 'x') return {t[1], t[2], t[3], t[4], t[5], t[6]}",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil return {table.remove(t), t[1], t[2], t[3], t[4]}",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil return table.concat(t, ',')",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil return {unpack(t)}",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil return table.getn(t)",
		"local t={1,2,3,4,5} t[5]=nil t[3]=nil local n=0 table.foreachi(t, function(i) n=n+1 end) return n",
		"local t={} table.insert(t, 'a') table.insert(t, 'b') t[1]=nil return #t",
		"return #KEYS", "return #ARGV", "local s='abc' return #s", "return #{1,2,3}",
		"local t = {x = {1, 2, nil, 4}} return #t.x", "local t={1,2,3} return #t + #t",
		// Constructors ending in a call or "...": OP_SETLIST grows the
		// array part to the last item stored.
		"local function f(...) local t={...} return #t end return f(1,nil,3)",
		"local function f(...) local t={...} return #t end return f(1,nil,nil,nil,5)",
		"local function f(...) local t={...} return #t end return f(nil,nil,3)",
		"local function f(...) local t={...} return #t end return f()",
		"local function g() return 1,nil,3,nil,5 end local t={0,g()} return #t",
		"local function g() return 1,nil,3,nil,5 end local t={x=1,0,g()} return #t",
		"local function g() return nil,nil end local t={g()} return #t",
		"local function g() return 1,2,3 end local t={g()} t[5]=5 t[4]=4 t[3]=nil return #t",
		"local function g() return 1,2,3,4,5 end local t={g()} t[7]=7 t.x=1 local r={} for k in pairs(t) do r[#r+1]=k end return r",
		"local t={select(1, 1, nil, 3)} return #t", "local t={1, unpack({1,nil,3}, 1, 3)} return #t",
		// # of a call or a constructor.
		"return #{1,nil,3}", "return #{1,nil,nil,nil,5}",
		"local function f() local t={1,2,3,4,5} t[5]=nil t[3]=nil return t end return #f()",
		"local function f() local t={1,2,3,4,5} t[5]=nil t[3]=nil return t end return #(f())",
		"local function f() return 'abcd' end return #f()",
		"local function f() return nil end return #f()", "local function f() return 5 end return #f()",
		"local function f() return true end return #f() + 1", "return #(nil)",
		// Integer keys assigned past the end, then cut out: Lua kept them
		// in the hash part.
		"local t={} t[3]=3 t[5]=5 t[2]=2 t[4]=4 t[5]=nil return #t",
		"local t={} t[2]=2 t[3]=3 t[1]=1 t[3]=nil return #t", "local t={} t[4]=4 t[3]=3 t[2]=2 t[1]=1 t[4]=nil return #t",
		"local t={} t[8]=8 for i=1,6 do t[i]=i end t[3]=nil return #t",
		"local t={} for i=1,100 do t[#t+1] = i end t[50] = nil return #t",
		"local t = {} t[1] = 1 t[2] = nil t[3] = 3 return #t",
		"local t={} rawset(t, 3, 3) rawset(t, 1, 1) rawset(t, 2, 2) rawset(t, 3, nil) return #t",
		"local t={1,2,3} t[6]=6 t[5]=5 t[4]=4 table.remove(t) return #t",
		"local t = {} local x = {} rawset(t, 1, x) rawset(t, 3, x) rawset(t, 2, nil) return #t",
		"local t = {} table.insert(t, 1) table.insert(t, nil) t[3] = 3 return #t",
	)
	r := rand.New(rand.NewPCG(51, 51))
	var scripts []string
	for n := 0; n < 60; n++ {
		var b strings.Builder
		b.WriteString("local t={} ")
		size := 1 + r.IntN(100)
		for i := 1; i <= size; i++ {
			fmt.Fprintf(&b, "t[%d]=%d ", i, i)
		}
		for h := r.IntN(6); h >= 0; h-- {
			fmt.Fprintf(&b, "t[%d]=nil ", 1+r.IntN(size))
		}
		b.WriteString("return #t")
		scripts = append(scripts, b.String())
	}
	evalAll(p, scripts...)
}

// TestScriptNodeLocalThenWrite: a single server runs a script that calls
// a command whose answer is the node's own (INFO, MEMORY, OBJECT FREQ,
// LASTSAVE, SLOWLOG, PUBSUB), or TIME, and then writes, as Redis 7.0 does:
// it writes. Only a cluster node refuses such writes (DESIGN.md,
// "Scripts in the log").
func TestScriptNodeLocalThenWrite(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "v", "value")
	evalAll(p,
		"redis.call('SET', 'info', redis.call('INFO')) return redis.call('EXISTS', 'info')",
		"local i = redis.call('INFO', 'server') if #i > 0 then redis.call('SET', 'branch', 'yes') end return redis.call('GET', 'branch')",
		"local t = redis.call('TIME') redis.call('SET', 'time', t[1] .. '.' .. t[2]) return redis.call('EXISTS', 'time')",
		"redis.call('SET', 'lastsave', redis.call('LASTSAVE')) return redis.call('EXISTS', 'lastsave')",
		"local u = redis.call('MEMORY', 'USAGE', 'v') redis.call('SET', 'usage', u) return type(u)",
		"local s = redis.call('MEMORY', 'STATS') redis.call('SET', 'stats', #s) return redis.call('EXISTS', 'stats')",
		"local r = redis.pcall('OBJECT', 'FREQ', 'v') redis.call('SET', 'freq', 'x') return r",
		"local n = redis.call('PUBSUB', 'NUMSUB', 'ch') redis.call('SET', 'numsub', n[2]) return redis.call('GET', 'numsub')",
		"local l = redis.call('SLOWLOG', 'LEN') redis.call('SET', 'slowlog', l) return redis.call('EXISTS', 'slowlog')",
		"redis.call('SET', 'a', '1') redis.call('INFO') redis.call('SET', 'b', '2') return redis.call('MGET', 'a', 'b')",
		"redis.call('INFO') return redis.pcall('SET', 'c', '3')",
		"return redis.replicate_commands()",
	)
	p.Do("MULTI")
	p.Do("EVAL", "redis.call('SET', 'multi', redis.call('INFO')) return 1", "0")
	p.Do("EVAL", "return redis.call('INCR', 'counter')", "0")
	p.Do("EXEC")
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", "#!lua name=nodelocal\nredis.register_function('nl', function() redis.call('SET', 'fn', redis.call('INFO')) return redis.call('EXISTS', 'fn') end)")
	p.Do("FCALL", "nl", "0")
	p.Do("FUNCTION", "FLUSH")
	p.Do("EXISTS", "info", "time", "lastsave", "usage", "stats", "freq", "numsub", "slowlog", "multi", "fn")
}

// TestScriptRESP3NullsInArrayReply: under redis.setresp(3) a null inside
// an array reply becomes a Lua nil that Redis stores with lua_settable, so
// it still takes its slot: `#t` and the pairs order over such a reply are
// Redis's for every arrangement of present and missing keys.
func TestScriptRESP3NullsInArrayReply(t *testing.T) {
	p := NewPair(t)
	const script = `redis.setresp(3)
local r = redis.call('MGET', unpack(KEYS))
local out = {#r}
for k, v in pairs(r) do out[#out+1] = tostring(k) .. '=' .. tostring(v) end
return out`
	keys := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	for mask := 0; mask < 1<<len(keys); mask++ {
		p.Do("FLUSHALL")
		for i, k := range keys {
			if mask&(1<<i) != 0 {
				p.Do("SET", k, "v"+k)
			}
		}
		p.Do(append([]string{"EVAL", script, "6"}, keys...)...)
	}
}
