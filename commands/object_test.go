package commands

import (
	"testing"
	"time"
)

// TestObjectIdletimeShared: Redis keeps one object for each integer
// 0..9999, so a read of any key holding it resets OBJECT IDLETIME of all of
// them (checked against Redis 7.0.15: SET a 123, SET b 123, wait, GET b,
// then OBJECT IDLETIME a is 0). Idle times count whole seconds of the clock.
func TestObjectIdletimeShared(t *testing.T) {
	te := newTestEngine(t)
	cl, conn := te.client()
	te.advance(1500 * time.Millisecond) // 1001.5 s: not on a second boundary
	te.expect(cl, conn, "+OK\r\n", "SET", "a", "123")
	te.expect(cl, conn, "+OK\r\n", "SET", "b", "123")
	te.expect(cl, conn, "+OK\r\n", "SET", "c", "x")
	te.advance(3 * time.Second)
	// Never read since the start (1000 s): 4 whole seconds.
	te.expect(cl, conn, ":4\r\n", "OBJECT", "IDLETIME", "a")
	te.expect(cl, conn, ":3\r\n", "OBJECT", "IDLETIME", "c")
	te.expect(cl, conn, "$3\r\n123\r\n", "GET", "b")
	te.expect(cl, conn, ":0\r\n", "OBJECT", "IDLETIME", "a")
	te.advance(600 * time.Millisecond) // crosses 1005 s
	te.expect(cl, conn, ":1\r\n", "OBJECT", "IDLETIME", "a")
	te.expect(cl, conn, ":4\r\n", "OBJECT", "IDLETIME", "c")
	// 12345 is not shared.
	te.expect(cl, conn, "+OK\r\n", "SET", "big", "12345")
	te.expect(cl, conn, ":0\r\n", "OBJECT", "IDLETIME", "big")
	te.expect(cl, conn, ":2147483647\r\n", "OBJECT", "REFCOUNT", "a")
	te.expect(cl, conn, ":1\r\n", "OBJECT", "REFCOUNT", "big")
}
