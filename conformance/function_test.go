package conformance

import (
	"encoding/binary"
	"strings"
	"testing"
)

const lib1 = "#!lua name=mylib\n" +
	"redis.register_function('f1', function(keys, args) return {keys[1], args[1], #keys, #args} end)\n" +
	"redis.register_function{function_name='f2', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'no-writes'}, description='desc'}\n" +
	"redis.register_function{function_name='f3', callback=function() error('boom') end}\n" +
	"redis.register_function{function_name='f4', callback=function(keys) return redis.call('set', keys[1], 'w') end, flags={'allow-oom', 'allow-stale'}}\n" +
	"redis.register_function('f5', function(keys, args) return KEYS end)\n" +
	"local n = 0\n" +
	"local function helper() return redis.call('ping') end\n" +
	"redis.register_function('f6', function() n = n + 1 return {n, helper()} end)\n"

func TestFunctionLoadCall(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", lib1)
	p.Do("FCALL", "f1", "1", "k", "a")
	p.Do("FCALL", "F1", "0")
	p.Do("FCALL", "f2", "1", "k", "a")
	p.Do("FCALL_RO", "f1", "1", "k", "a")
	p.Do("FCALL_RO", "f2", "1", "k", "a")
	p.Do("FCALL", "f3", "0")
	p.Do("FCALL", "f4", "1", "k")
	p.Do("FCALL_RO", "f4", "1", "k")
	p.Do("FCALL", "f5", "0")
	p.Do("FCALL", "f6", "0")
	p.Do("FCALL", "f6", "0")
	p.Do("FCALL", "nosuch", "0")
	p.Do("FCALL", "f1", "2", "k")
	p.Do("FCALL", "f1", "-1")
	p.Do("FCALL", "f1", "x")
	p.Do("FCALL", "nosuch", "x")
	p.Do("FCALL")
	p.Do("GET", "k")
	p.Do("FUNCTION", "STATS")
	p.Do("FUNCTION", "LOAD", lib1)
	p.Do("FUNCTION", "LOAD", "REPLACE", lib1)
	p.Do("FCALL", "f6", "0")
	p.Do("FUNCTION", "DELETE", "nosuch")
	p.Do("FUNCTION", "DELETE", "MYLIB")
	p.Do("FUNCTION", "DELETE", "mylib")
	p.Do("FCALL", "f1", "0")
	p.Do("FUNCTION", "STATS")
	p.Do("FUNCTION", "FLUSH")
}

func TestFunctionList(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LIST")
	code := "#!lua name=listlib\nredis.register_function{function_name='only', callback=function() return 1 end, flags={'no-writes', 'no-cluster'}, description='the one'}"
	p.Do("FUNCTION", "LOAD", code)
	p.Do("FUNCTION", "LIST")
	p.Do("FUNCTION", "LIST", "WITHCODE")
	p.Do("FUNCTION", "LIST", "LIBRARYNAME", "list*")
	p.Do("FUNCTION", "LIST", "LIBRARYNAME", "LIST*")
	p.Do("FUNCTION", "LIST", "LIBRARYNAME", "nomatch")
	p.Do("FUNCTION", "LIST", "withcode", "libraryname", "listlib")
	p.Do("FUNCTION", "LIST", "LIBRARYNAME")
	p.Do("FUNCTION", "LIST", "foo")
	p.Do("FUNCTION", "LIST", "WITHCODE", "WITHCODE")
	p.Do("HELLO", "3")
	p.Do("FUNCTION", "LIST")
	p.Do("FUNCTION", "STATS")
	p.Do("HELLO", "2")
	p.Do("FUNCTION", "FLUSH", "ASYNC")
	p.Do("FUNCTION", "FLUSH", "SYNC")
	p.Do("FUNCTION", "FLUSH", "x")
	p.Do("FUNCTION", "KILL")
	p.Do("FUNCTION", "HELP")
	p.Do("FUNCTION", "NOSUCH")
	p.Do("FUNCTION")
}

func TestFunctionLoadErrors(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", "#!lua name=base\nredis.register_function('taken', function() return 1 end)")
	for _, code := range []string{
		"return 1",
		"#!lua\nreturn 1",
		"#!lua name=l2\nreturn 1",
		"#!lua name=l2 x=y\nredis.register_function('g', function() return 1 end)",
		"#!lua name=l2 name=l3\nredis.register_function('g', function() return 1 end)",
		"#!lua name=l-2\nredis.register_function('g', function() return 1 end)",
		"#!lua name=l2\nredis.register_function('taken', function() return 1 end)",
		"#!lua name=l2\nredis.register_function('g-1', function() return 1 end)",
		"#!lua name=l2\nredis.register_function('g', function() return 1 end)\nredis.register_function('g', function() return 1 end)",
		"#!lua name=l2\nredis.call('ping')",
		"#!lua name=l2\nlocal _ = string",
		"#!lua name=l2\nx = 1",
		"#!lua name=l2\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}",
		"#!lua name=l2\nredis.register_function{function_name='g', callback=function() end, foo=1}",
		"#!lua name=l2\nredis.register_function('g')",
		"#!lua name=l2\nredis.register_function('g', function() return 1 end, 5)",
		"#!lua name=l2\nredis.register_function(5, function() return 1 end)",
		"#!lua name=l3\nredis.register_function({}, function() return 1 end)",
		"#!lua name=l3\nredis.register_function('g', 5)",
		"#!lua name=l3\nredis.register_function{function_name=5, callback=function() end}",
		"#!lua name=l4\nredis.register_function{callback=function() end}",
		"#!lua name=l4\nredis.register_function{function_name='g'}",
		"#!lua name=l4\nredis.register_function{function_name='g', callback=function() end, flags='x'}",
		"#!lua name=l4\nredis.register_function{function_name='g', callback=function() end, description={}}",
		"#!lua name=l4\nredis.register_function{function_name='g', callback=function() end, flags={5}}",
		"#!lua name=l4\nredis.register_function{function_name='g', callback=5}",
		"#!luax name=l4\nx = 1",
		"#!lua name=l4",
		"#!LUA name=l5\nredis.register_function('g5', function() return 1 end)",
		"#!lua name=l6\nredis.log(redis.LOG_DEBUG, 'loading') redis.register_function('g6', function() return redis.REDIS_VERSION end)",
	} {
		p.Do("FUNCTION", "LOAD", code)
	}
	p.Do("FUNCTION", "LOAD", "#!lua name=slow\nwhile true do end")
	p.Do("FUNCTION", "LOAD", "foo", "#!lua name=x\nredis.register_function('x', function() return 1 end)")
	p.Do("FUNCTION", "LOAD", "REPLACE")
	p.Do("FUNCTION", "LOAD")
	p.Do("FCALL", "g6", "0")
	p.Do("FCALL", "5", "0")
	p.Do("FUNCTION", "FLUSH")
}

// TestFunctionReadOnlyTables: what a library sees while it loads, and
// what its functions see when called, is read-only as in Redis 7.0.
func TestFunctionReadOnlyTables(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	for _, code := range []string{
		"#!lua name=r1\nredis.x = 1",
		"#!lua name=r1\nredis.register_function = nil",
		"#!lua name=r1\nlocal mt = getmetatable(redis)",
		"#!lua name=r1\nx = 1",
	} {
		p.Do("FUNCTION", "LOAD", code)
	}
	p.Do("FUNCTION", "LOAD", `#!lua name=r2
redis.register_function('mt', function() return tostring(getmetatable(redis)) end)
redis.register_function('setg', function() x = 1 end)
redis.register_function('newindex', function() return tostring(getmetatable(_G).__newindex) end)
redis.register_function('setlib', function() string.x = 1 end)
redis.register_function('self', function() return rawequal(_G, _G._G) end)
redis.register_function('rawset', function() rawset(_G, 'x', 1) end)
redis.register_function('insert', function() table.insert(redis, 1) end)
redis.register_function('errlib', function() error(string) end)
redis.register_function('errchain', function() error(setmetatable({}, {__newindex = _G})) end)
redis.register_function('count', function() local n = 0 for k in pairs(string) do n = n + 1 end return {n, tostring(rawget(_G, 'source'))} end)`)
	for _, f := range []string{"mt", "setg", "newindex", "setlib", "self", "rawset", "insert", "errlib", "errchain", "count"} {
		p.Do("FCALL", f, "0")
	}
	p.Do("FUNCTION", "FLUSH")
}

func TestFunctionDumpRestore(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "DUMP")
	p.Do("FUNCTION", "LOAD", "#!lua name=dl\nredis.register_function('dumpme', function() return 'dumped dumped dumped' end)")
	dump := p.Do("FUNCTION", "DUMP")
	p.Do("FUNCTION", "RESTORE", dump.Str)
	p.Do("FUNCTION", "RESTORE", dump.Str, "APPEND")
	p.Do("FUNCTION", "RESTORE", dump.Str, "REPLACE")
	p.Do("FCALL", "dumpme", "0")
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "RESTORE", dump.Str)
	p.Do("FCALL", "dumpme", "0")
	p.Do("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('dumpme2', function() return 2 end)")
	p.Do("FUNCTION", "RESTORE", dump.Str, "FLUSH")
	p.Do("FUNCTION", "LIST")
	p.Do("FCALL", "dumpme2", "0")
	p.Do("FUNCTION", "RESTORE", dump.Str, "BAD")
	p.Do("FUNCTION", "RESTORE", "garbage")
	p.Do("FUNCTION", "RESTORE", dump.Str[:len(dump.Str)-1]+"x")
	p.Do("FUNCTION", "RESTORE", dump.Str, "FLUSH", "x")
	p.Do("FUNCTION", "RESTORE")
	// A short library is stored uncompressed.
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", "#!lua name=short\nredis.register_function('s', function() return 1 end)")
	p.Do("FUNCTION", "DUMP")
	p.Do("FUNCTION", "LOAD", "REPLACE", "#!lua name=short\n"+
		"redis.register_function('s', function() return 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' end)")
	p.Do("FUNCTION", "DUMP")
	p.Do("FUNCTION", "FLUSH")
}

// restorePayload wraps body in FUNCTION DUMP's trailer: RDB version 10 and
// Redis's CRC64 (Jones, reflected, no inversion) of everything before.
func restorePayload(body []byte) string {
	p := append(append([]byte(nil), body...), 10, 0)
	crc := uint64(0)
	for _, c := range p {
		crc ^= uint64(c)
		for i := 0; i < 8; i++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x95AC9329AC4BC9B5
			} else {
				crc >>= 1
			}
		}
	}
	return string(binary.LittleEndian.AppendUint64(p, crc))
}

// TestFunctionRestoreMalformed: payloads with a valid checksum whose
// records are malformed or claim huge lengths (lockkv crashed on some:
// a negative length panicked, a huge LZF length ran out of memory), and
// the format of Redis 7.0's release candidates, which 7.0 still loads.
func TestFunctionRestoreMalformed(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	str := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	be64 := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	code := "redis.register_function('f', function() return 1 end)"
	for _, body := range [][]byte{
		append(append([]byte{245, 0x81}, be64(1<<63)...), "abc"...),
		append(append([]byte{245, 0x81}, be64(1<<40)...), "abc"...),
		{245, 0x80, 0xff, 0xff, 0xff, 0xff, 'a'},
		append(append([]byte{245, 0xC3, 2, 0x81}, be64(1<<40)...), 0, 'a'),
		append(append([]byte{245, 0xC3, 2, 0x81}, be64(1<<63)...), 0, 'a'),
		{245, 0xC3, 2, 0x80, 0, 0x10, 0, 0, 0, 'a'},
		append(append([]byte{245, 0xC3, 0x81}, be64(1<<63)...), 5, 0, 'a'),
		{245, 0xC3, 2, 5, 0, 'a'},
		{245, 0xC0, 5},
		{245, 0xC7},
		{0},
		append([]byte{245, 20}, "#!lua name=t\nreturn"...), // runs into the trailer
		{246},
		append([]byte{246}, str("LUA")...),
		append(append([]byte{246}, str("LUA")...), str("name")...),
		append(append(append([]byte{246}, str("LUA")...), str("name")...), 1),
		append(append(append(append([]byte{246}, str("LUA")...), str("name")...), 1), str("desc")...),
		append(append(append(append(append([]byte{246}, str("LUA")...), str("name")...), 1), str("desc")...), str("return 1")...),
		append(append(append(append([]byte{246}, str("mylib")...), str("LUA")...), 0), str(code)...),
		append(append(append(append([]byte{246}, str("mylib2")...), str("LUA")...), 0x80, 0, 0, 0, 0), str(strings.Replace(code, "'f'", "'g'", 1))...),
		append(append(append(append([]byte{246}, str("mylib3")...), str("lua")...), 0), str("return 1")...),
		append(append(append(append([]byte{246}, str("my lib")...), str("LUA")...), 0), str(code)...),
	} {
		p.Do("FUNCTION", "RESTORE", restorePayload(body))
	}
	p.Do("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "mylib")
	p.Do("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "mylib2")
	p.Do("FCALL", "g", "0")
	p.Do("FUNCTION", "FLUSH")
}

// TestFunctionLoadTimeout: a library whose load code runs past 500 ms
// fails with Redis's load timeout, and nothing is loaded (a single
// server: a cluster counts steps instead, see DESIGN.md).
func TestFunctionLoadTimeout(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("FUNCTION", "LOAD", "#!lua name=spin\nwhile true do end")
	p.Do("FUNCTION", "LOAD", "#!lua name=spin2\nlocal i = 0 repeat i = i + 1 until false")
	p.Do("FUNCTION", "LIST")
	p.Do("FUNCTION", "LOAD", "#!lua name=ok\nredis.register_function('ok', function() return 1 end)")
	p.Do("FCALL", "ok", "0")
	p.Do("FUNCTION", "FLUSH")
}
