package luaengine

import (
	"fmt"
	"strings"
	"testing"
)

// keysOf runs body (which returns a table) and lists its keys through pairs.
func keysOf(t *testing.T, e *Engine, body string) string {
	t.Helper()
	sc := mustCompile(t, "local t = (function() "+body+" end)() local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return table.concat(r, ',')")
	out := run(t, e, sc, &fakeCaller{}, nil, nil)
	if strings.HasPrefix(out, "-") {
		t.Fatalf("%s: %s", body, out)
	}
	return out
}

func TestPairsOrderIsLayoutNotInsertion(t *testing.T) {
	e := New()
	// The same keys assigned in two orders, or built by a constructor
	// instead of by assignments, may be visited in different orders, but
	// each table always in the same one.
	got := keysOf(t, e, "return {alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6}")
	if again := keysOf(t, e, "return {alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6}"); again != got {
		t.Fatalf("constructor order changed: %q then %q", got, again)
	}
	if got == "$32\r\nalpha,beta,gamma,delta,epsilon,zeta\r\n" {
		t.Fatalf("pairs visits insertion order: %q", got)
	}
	// Array part first, in order.
	if got := keysOf(t, e, "return {10, 20, 30}"); got != "$5\r\n1,2,3\r\n" {
		t.Fatalf("array keys: %q", got)
	}
}

func TestNextWhileClearing(t *testing.T) {
	e := New()
	// Clearing fields during a traversal is allowed: every key is still
	// visited once.
	sc := mustCompile(t, `
		local t = {}
		for i = 1, 300 do t['k' .. i] = i t[i] = i end
		local n = 0
		for k in pairs(t) do t[k] = nil n = n + 1 end
		return {n, next(t) == nil}`)
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); got != "*2\r\n:600\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
	// A key never in the table is Lua's error, without a position.
	sc = mustCompile(t, "return next({x=1}, 'y')")
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); !strings.HasPrefix(got, "-ERR invalid key to 'next'") {
		t.Fatalf("got %q", got)
	}
}

func TestSizeMarkerHidden(t *testing.T) {
	e := New()
	sc := mustCompile(t, `
		local t = {a = 1}
		local mt = {}
		local before = getmetatable(t)
		setmetatable(t, mt)
		return {before == nil, getmetatable(t) == mt, t.b == nil}`)
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); got != "*3\r\n:1\r\n:1\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
}

func BenchmarkPairs(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := New()
			sc := mustCompile(b, fmt.Sprintf(`
				local t = {}
				for i = 1, %d do t['key' .. i] = i end
				local s = 0
				for k, v in pairs(t) do s = s + v end
				return s`, n))
			f := &fakeCaller{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e, sc, f, nil, nil)
			}
		})
	}
}

func BenchmarkCjsonEncodeObject(b *testing.B) {
	e := New()
	sc := mustCompile(b, `return cjson.encode({name='lock', owner='abc:1', ttl=30000, count=1, kind='reentrant', fair=false})`)
	f := &fakeCaller{}
	for i := 0; i < b.N; i++ {
		run(b, e, sc, f, nil, nil)
	}
}

func BenchmarkArrayIpairsAndPairs(b *testing.B) {
	e := New()
	sc := mustCompile(b, `
		local t = {}
		for i = 1, 1000 do t[i] = i end
		local s = 0
		for k, v in pairs(t) do s = s + v end
		return cjson.encode(t):len() + s`)
	f := &fakeCaller{}
	for i := 0; i < b.N; i++ {
		run(b, e, sc, f, nil, nil)
	}
}

// A RESP3 null in an array reply is nil, which Redis stores with
// lua_settable: the key takes a slot, so the order of pairs and #t
// depend on where the nulls are. Expected values are redis-server
// 7.0.15's for MGET over present (v) and missing (m) keys.
func TestReplyArrayNullsTakeSlots(t *testing.T) {
	e := New()
	sc := mustCompile(t, `redis.setresp(3) local t = redis.call('MGET') local r = {} for k in pairs(t) do r[#r+1] = k end return table.concat(r, ',') .. ' #' .. #t`)
	for _, c := range []struct{ keys, want string }{
		{"mv", "2 #0"},
		{"vmmvvm", "1,5,4 #1"},
		{"mvvmm", "3,2 #0"},
		{"mvmvvmvmmv", "2,10,4,5,7 #0"},
		{"vvmmmvvvmv", "1,2,6,7,8,10 #8"},
		{"mmmmvvvmvm", "6,7,9,5 #0"},
		{"vmvmvvmmvm", "1,6,3,5,9 #1"},
		{"mvvmvmvmv", "2,3,9,5,7 #0"},
		{"vvvv", "1,2,3,4 #4"},
	} {
		reply := fmt.Sprintf("*%d\r\n", len(c.keys))
		for _, k := range c.keys {
			if k == 'm' {
				reply += "_\r\n"
			} else {
				reply += "$1\r\n1\r\n"
			}
		}
		want := fmt.Sprintf("$%d\r\n%s\r\n", len(c.want), c.want)
		if got := run(t, e, sc, &fakeCaller{reply: []byte(reply)}, nil, nil); got != want {
			t.Errorf("%s: got %q, want %q", c.keys, got, want)
		}
	}
}

// BenchmarkReplyArray converts a 100-element array reply into a table.
func BenchmarkReplyArray(b *testing.B) {
	e := New()
	sc := mustCompile(b, `local t = redis.call('LRANGE', 'k', 0, -1) return #t`)
	reply := "*100\r\n"
	for i := 0; i < 100; i++ {
		reply += "$5\r\nvalue\r\n"
	}
	f := &fakeCaller{reply: []byte(reply)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.calls = f.calls[:0]
		run(b, e, sc, f, nil, nil)
	}
}
