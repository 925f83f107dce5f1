package commands

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestObjectIdletimeShared: Redis keeps one object for each integer
// 0..9999, so a read of any key holding it resets OBJECT IDLETIME of all of
// them (checked against Redis 7.0.15: SET a 123, SET b 123, wait, GET b,
// then OBJECT IDLETIME a is 0). Idle times count whole seconds of the clock.
func TestObjectIdletimeShared(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.Advance(1500 * time.Millisecond) // 1001.5 s: not on a second boundary
	te.Expect(cl, conn, "+OK\r\n", "SET", "a", "123")
	te.Expect(cl, conn, "+OK\r\n", "SET", "b", "123")
	te.Expect(cl, conn, "+OK\r\n", "SET", "c", "x")
	te.Advance(3 * time.Second)
	// Never read since the start (1000 s): 4 whole seconds.
	te.Expect(cl, conn, ":4\r\n", "OBJECT", "IDLETIME", "a")
	te.Expect(cl, conn, ":3\r\n", "OBJECT", "IDLETIME", "c")
	te.Expect(cl, conn, "$3\r\n123\r\n", "GET", "b")
	te.Expect(cl, conn, ":0\r\n", "OBJECT", "IDLETIME", "a")
	te.Advance(600 * time.Millisecond) // crosses 1005 s
	te.Expect(cl, conn, ":1\r\n", "OBJECT", "IDLETIME", "a")
	te.Expect(cl, conn, ":4\r\n", "OBJECT", "IDLETIME", "c")
	// 12345 is not shared.
	te.Expect(cl, conn, "+OK\r\n", "SET", "big", "12345")
	te.Expect(cl, conn, ":0\r\n", "OBJECT", "IDLETIME", "big")
	te.Expect(cl, conn, ":2147483647\r\n", "OBJECT", "REFCOUNT", "a")
	te.Expect(cl, conn, ":1\r\n", "OBJECT", "REFCOUNT", "big")
}

// TestObjectFreqLFU: Redis's LFU counter (evict.c): a new key starts at
// LFU_INIT_VAL, each access (reads and writes, not OBJECT) adds one with
// lfu-log-factor 0, and the counter loses one per lfu-decay-time minutes
// since the last access, counted on the minutes clock.
func TestObjectFreqLFU(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu", "lfu-log-factor", "0", "lfu-decay-time", "2")
	te.Advance(30 * time.Second) // 1030 s: minute 17
	te.Expect(cl, conn, ":1\r\n", "HSET", "h", "f", "v")
	te.Expect(cl, conn, ":5\r\n", "OBJECT", "FREQ", "h")
	for i := 0; i < 5; i++ {
		te.Expect(cl, conn, "$1\r\nv\r\n", "HGET", "h", "f")
	}
	te.Expect(cl, conn, ":0\r\n", "HSET", "h", "f", "w")
	te.Expect(cl, conn, ":11\r\n", "OBJECT", "FREQ", "h")
	// At 1090 s it is minute 18: one minute elapsed, no period yet.
	te.Advance(60 * time.Second)
	te.Expect(cl, conn, ":11\r\n", "OBJECT", "FREQ", "h")
	// 1140 s, minute 19: one period of two minutes.
	te.Advance(50 * time.Second)
	te.Expect(cl, conn, ":10\r\n", "OBJECT", "FREQ", "h")
	// An access decays, then counts: 10+1, at minute 19.
	te.Expect(cl, conn, "$1\r\nw\r\n", "HGET", "h", "f")
	te.Expect(cl, conn, ":11\r\n", "OBJECT", "FREQ", "h")
	// Ten minutes: five periods.
	te.Advance(10 * time.Minute)
	te.Expect(cl, conn, ":6\r\n", "OBJECT", "FREQ", "h")
	// Never below zero.
	te.Advance(time.Hour)
	te.Expect(cl, conn, ":0\r\n", "OBJECT", "FREQ", "h")
	te.Expect(cl, conn, "$1\r\nw\r\n", "HGET", "h", "f")
	te.Expect(cl, conn, ":1\r\n", "OBJECT", "FREQ", "h")

	// lfu-log-factor 10: past LFU_INIT_VAL the counter grows with
	// probability 1/((counter-5)*10+1); it saturates at 255.
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "lfu-log-factor", "10", "lfu-decay-time", "0")
	te.Expect(cl, conn, "+OK\r\n", "SET", "s", "x")
	for i := 0; i < 1000; i++ {
		te.Do(cl, conn, "GET", "s")
	}
	// From 5, 1000 accesses reach about 18 (sum of 10k+1 steps).
	freq := te.Do(cl, conn, "OBJECT", "FREQ", "s")
	if freq < ":12\r\n" || freq > ":25\r\n" || len(freq) != 5 {
		t.Errorf("after 1000 GETs with lfu-log-factor 10: OBJECT FREQ = %q", freq)
	}
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "lfu-log-factor", "0")
	for i := 0; i < 300; i++ {
		te.Do(cl, conn, "GET", "s")
	}
	te.Expect(cl, conn, ":255\r\n", "OBJECT", "FREQ", "s")
}
