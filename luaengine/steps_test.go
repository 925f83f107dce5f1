package luaengine

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/lockscripts"
)

// runaways are scripts that never end by themselves: each must end with
// the step budget's error once it has taken its budget, however it
// spends it.
var runaways = map[string]string{
	"empty loop":        "while true do end",
	"counting loop":     "local i = 0 while true do i = i + 1 end",
	"table growth":      "local t = {} for i = 1, 1e10 do t[i] = i end",
	"string keys":       "local t = {} for i = 1, 1e10 do t['k' .. i] = i end",
	"tables in a table": "local t = {} for i = 1, 1e10 do t[i] = {} end",
	"closures":          "local t = {} for i = 1, 1e10 do t[i] = function() return i end end",
	"string.rep":        "local t = {} for i = 1, 1e10 do t[i] = string.rep('x', 1e6) .. i end",
	"concat growth":     "local s = '' while true do s = s .. 'xxxxxxxx' end",
	"table.insert":      "local t = {} while true do table.insert(t, 1, 'x') end",
	"table.concat":      "local t = {} for i = 1, 1000 do t[i] = string.rep('x', 1000) end while true do local s = table.concat(t) end",
	"table.sort":        "local t = {} for i = 1, 100000 do t[i] = -i end while true do table.sort(t) end",
	"unpack":            "local t = {} for i = 1, 7000 do t[i] = i end while true do local x = {unpack(t)} end",
	"recursion":         "local function f(n) if n > 10000 then return 0 end return f(n + 1) + 1 end while true do f(1) end",
	"pcall loop":        "while true do pcall(function() while true do end end) end",
	"gsub":              "local s = string.rep('a', 1e6) while true do s = string.gsub(s, 'a', 'a') end",
	"pattern":           "local s = string.rep('a', 5000) while true do string.find(s, string.rep('a?', 5000) .. string.rep('a', 5000)) end",
	"cjson":             "local t = {} for i = 1, 1000 do t[i] = {i, tostring(i)} end while true do cjson.decode(cjson.encode(t)) end",
	"cmsgpack":          "local t = {} for i = 1, 1000 do t[i] = {i, tostring(i)} end while true do cmsgpack.unpack(cmsgpack.pack(t)) end",
	"redis.call":        "while true do redis.call('get', 'k') end",
	"coroutines":        "local t = {} for i = 1, 1e10 do t[i] = coroutine.create(function() end) end",
	"loadstring":        "local src = string.rep('local x = 1 ', 1000) while true do loadstring(src) end",
	"next":              "local t = {} for i = 1, 10000 do t['k' .. i] = i end while true do next(t) t['k1'] = nil t['k1'] = 1 end",
	"big loop body":     "local x = 0 while true do " + strings.Repeat("x = x + 1 ", 2000) + " end",
	"length":            "local t = {} for i = 1, 100000 do t[i] = i end while true do local n = #t end",
	"keyed length":      "local t = {} for i = 1, 10000 do t['k' .. i] = i end t[1] = 1 while true do local n = #t end",
	"growing by length": "local t = {} while true do t[#t + 1] = 'x' end",
	"unpack window":     "local t = {} for i = 1, 100000 do t[i] = i end while true do unpack(t, 100000) end",
	"varargs":           "local function f(...) return select('#', ...) end local t = {} for i = 1, 7000 do t[i] = i end local function g(...) while true do f(...) end end g(unpack(t))",
}

func runBudget(t testing.TB, e *Engine, body string, maxSteps uint64) string {
	t.Helper()
	sc := mustCompile(t, body)
	w := &resp.Writer{Proto: 2}
	r := &Run{Call: func(args [][]byte, proto int) []byte { return []byte("$3\r\nabc\r\n") }, Name: "f_test", Eval: true, Out: w, MaxSteps: maxSteps}
	e.Run(sc, r)
	return string(w.B)
}

func TestStepBudgetEndsRunaways(t *testing.T) {
	const budget = 2_000_000
	want := "-ERR " + StepBudgetError(budget) + " script: f_test, on @user_script:1.\r\n"
	for name, body := range runaways {
		t.Run(name, func(t *testing.T) {
			e := New()
			got := runBudget(t, e, body, budget)
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
			// Deterministic: the same steps, so the same end, again.
			steps := e.steps
			if got2 := runBudget(t, New(), body, budget); got2 != got {
				t.Fatalf("second run %q", got2)
			}
			if steps <= budget {
				t.Fatalf("ended at %d steps, under the budget", steps)
			}
		})
	}
}

// BenchmarkRunaways: how fast each runaway spends the budget of
// replicated scripts, and what it allocates meanwhile (Go's cumulative
// allocation, an upper bound of the live heap it can reach).
func BenchmarkRunaways(b *testing.B) {
	const budget = ReplicatedMaxSteps
	for name, body := range runaways {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			var ms runtime.MemStats
			var alloc uint64
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				e := New()
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before := ms.TotalAlloc
				start := time.Now()
				runBudget(b, e, body, budget)
				elapsed += time.Since(start)
				runtime.ReadMemStats(&ms)
				alloc += ms.TotalAlloc - before
			}
			b.ReportMetric(float64(elapsed.Seconds())/float64(b.N), "s/budget")
			b.ReportMetric(float64(alloc)/float64(b.N)/(1<<20), "MB/budget")
		})
	}
}

// lockScripts are the lock families' scripts (lockscripts/)
// and the ones redsync and Redisson send, by name.
var lockScripts = map[string]string{
	"Acquire": lockscripts.Acquire, "Release": lockscripts.Release, "Renew": lockscripts.Renew,
	"ForceRelease": lockscripts.ForceRelease, "RWReadAcquire": lockscripts.RWReadAcquire,
	"RWWriteAcquire": lockscripts.RWWriteAcquire, "RWReadRelease": lockscripts.RWReadRelease,
	"RWWriteRelease": lockscripts.RWWriteRelease, "SemTryAcquire": lockscripts.SemTryAcquire,
	"SemRelease": lockscripts.SemRelease, "SemTrySetPermits": lockscripts.SemTrySetPermits,
	"PESTryAcquire": lockscripts.PESTryAcquire, "PESRelease": lockscripts.PESRelease,
	"LatchTrySetCount": lockscripts.LatchTrySetCount, "LatchCountDown": lockscripts.LatchCountDown,
	"SpinAcquire": lockscripts.SpinAcquire, "SpinRelease": lockscripts.SpinRelease,
	"FencedAcquire": lockscripts.FencedAcquire, "FairAcquire": lockscripts.FairAcquire,
	"FairRelease": lockscripts.FairRelease,
	// redsync v4's release and extend (go-redsync/redsync mutex.go).
	"redsync delete": `local val = redis.call("GET", KEYS[1])
if val == ARGV[1] then
	return redis.call("DEL", KEYS[1])
elseif val == false then
	return -1
else
	return 0
end`,
	"redsync touch": `if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
else
	return 0
end`,
}

// lockReplies answers a lock script's commands as a busy lock would: the
// wait queue and the deadlines hold waiters many (a fair lock with that
// many threads queued, each deadline expired), other reads find values.
func lockReplies(waiters int) func(args [][]byte, proto int) []byte {
	queue := 0
	return func(args [][]byte, proto int) []byte {
		switch strings.ToLower(string(args[0])) {
		case "lindex":
			if queue < waiters {
				return []byte("$7\r\nwaiter1\r\n")
			}
			return []byte("$-1\r\n")
		case "lpop":
			queue++
			return []byte("$7\r\nwaiter1\r\n")
		case "zscore":
			return []byte("$1\r\n0\r\n")
		case "zrange", "zrangebyscore":
			b := []byte("*" + strconv.Itoa(waiters) + "\r\n")
			for range waiters {
				b = append(b, "$7\r\nwaiter1\r\n"...)
			}
			return b
		case "get", "hget":
			return []byte("$2\r\n10\r\n")
		}
		return []byte(":0\r\n")
	}
}

// TestLockScriptsFarBelowBudget: a lock script takes a few steps, under
// 500 (a 20000th of the budget), and under 4% of the budget even with a
// thousand waiters queued on a fair lock or a semaphore (all expired, so
// one call removes them all).
func TestLockScriptsFarBelowBudget(t *testing.T) {
	args := [][]byte{[]byte("30000"), []byte("uuid:1"), []byte("1000"), []byte("1700000000000")}
	keys := [][]byte{[]byte("{l}"), []byte("{l}:q"), []byte("{l}:t"), []byte("{l}:c")}
	for _, waiters := range []int{0, 1000} {
		for name, body := range lockScripts {
			e := New()
			sc := mustCompile(t, body)
			w := &resp.Writer{Proto: 2}
			e.Run(sc, &Run{Call: lockReplies(waiters), Name: "f", Eval: true, Out: w, Keys: keys, Args: args, MaxSteps: ReplicatedMaxSteps})
			if strings.HasPrefix(string(w.B), "-") {
				t.Fatalf("%s: %q", name, w.B)
			}
			limit := uint64(500)
			if waiters > 0 {
				limit = ReplicatedMaxSteps / 25
			}
			t.Logf("%s, %d waiters: %d steps", name, waiters, e.steps)
			if e.steps > limit {
				t.Errorf("%s with %d waiters took %d steps", name, waiters, e.steps)
			}
		}
	}
}

// BenchmarkRunLockAcquireBudget runs the reentrant lock's acquire as a
// single server runs it (no budget) and as a cluster applies it (under
// the step budget).
func BenchmarkRunLockAcquireBudget(b *testing.B) {
	for _, budget := range []uint64{0, ReplicatedMaxSteps} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			e := New()
			sc := mustCompile(b, lockscripts.Acquire)
			w := &resp.Writer{Proto: 2}
			r := &Run{Call: func(args [][]byte, proto int) []byte { return []byte(":0\r\n") }, Name: "x", Eval: true, Out: w,
				Keys: [][]byte{[]byte("lock")}, Args: [][]byte{[]byte("30000"), []byte("uuid:1")}, MaxSteps: budget}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w.Reset()
				e.Run(sc, r)
			}
		})
	}
}

// BenchmarkRunLoops: scripts that loop, where the check points are: a
// counting loop, a loop that builds a table, a fair-lock style queue walk.
func BenchmarkRunLoops(b *testing.B) {
	for name, body := range map[string]string{
		"count":  "local x = 0 for i = 1, 10000 do x = x + i end return x",
		"table":  "local t = {} for i = 1, 10000 do t[#t + 1] = i end return #t",
		"string": "local s = {} for i = 1, 1000 do s[i] = 'k' .. i end return #table.concat(s, ',')",
		"calls":  "for i = 1, 1000 do redis.call('get', 'k') end return 1",
	} {
		for _, budget := range []uint64{0, ReplicatedMaxSteps} {
			b.Run(fmt.Sprintf("%s/budget=%d", name, budget), func(b *testing.B) {
				e := New()
				sc := mustCompile(b, body)
				w := &resp.Writer{Proto: 2}
				r := &Run{Call: func(args [][]byte, proto int) []byte { return []byte("$1\r\nv\r\n") }, Name: "x", Eval: true, Out: w, MaxSteps: budget}
				for i := 0; i < b.N; i++ {
					w.Reset()
					e.Run(sc, r)
				}
				if w.B[0] == '-' {
					b.Fatalf("%q", w.B)
				}
			})
		}
	}
}
