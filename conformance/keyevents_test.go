package conformance

import (
	"testing"
	"time"
)

// drainMarker is the channel drainEvents synchronises on. A subscriber
// subscribes to it (subscribeDrain) besides what it watches.
const drainMarker = "conformance:drain"

// subscribeDrain subscribes sub to drainMarker.
func subscribeDrain(sub *Pair) { sub.Do("SUBSCRIBE", drainMarker) }

// drainEvents publishes a message to drainMarker from pub, then reads from
// each server everything sub was pushed before that message and requires
// the same pushes in the same order. A server writes a command's
// notifications and invalidations into sub's output before it replies to
// the command, so they precede the marker published afterwards: nothing
// here depends on how fast either server or the machine is.
func drainEvents(t *testing.T, pub, sub *Pair) int {
	t.Helper()
	pub.Do("PUBLISH", drainMarker, "x")
	read := func(c *Conn) ([]Value, error) {
		var got []Value
		for {
			v, err := c.Read(10 * time.Second)
			if err != nil {
				return got, err
			}
			if (v.Kind == '*' || v.Kind == '>') && len(v.Elems) == 3 && v.Elems[0].Str == "message" && v.Elems[1].Str == drainMarker {
				return got, nil
			}
			got = append(got, v)
		}
	}
	want, err := read(sub.R)
	if err != nil {
		t.Fatalf("redis: no %s message: %v", drainMarker, err)
	}
	got, err := read(sub.L)
	if err != nil {
		sub.check("events", Value{Kind: '-', Str: "no marker: " + err.Error()}, Value{Kind: '*', Elems: want}, false)
		return len(want)
	}
	sub.check("events", Value{Kind: '*', Elems: got}, Value{Kind: '*', Elems: want}, Equal(Value{Kind: '*', Elems: got}, Value{Kind: '*', Elems: want}))
	return len(want)
}

func TestKeysNotifications(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEAn")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*@*__:*")
	subscribeDrain(sub)
	for _, cmd := range [][]string{
		{"SET", "a", "1"}, {"SET", "a", "2", "EX", "100"}, {"SET", "a", "3", "KEEPTTL"},
		{"SET", "a", "4", "NX"}, {"SET", "a", "5", "XX", "GET"}, {"SETNX", "b", "1"},
		{"SETEX", "c", "100", "v"}, {"PSETEX", "c", "100000", "v"}, {"GETSET", "c", "w"},
		{"MSET", "a", "1", "m", "2"}, {"MSETNX", "n1", "1", "n2", "2"}, {"MSETNX", "n1", "1"},
		{"INCR", "i"}, {"INCRBY", "i", "5"}, {"DECR", "i"}, {"DECRBY", "i", "2"},
		{"INCRBYFLOAT", "fl", "1.5"}, {"INCRBYFLOAT", "fl", "x"}, {"APPEND", "ap", "x"},
		{"APPEND", "ap", "y"}, {"SETRANGE", "sr", "2", "x"}, {"SETRANGE", "sr", "0", "y"},
		{"SETRANGE", "sr", "0", ""}, {"GETDEL", "sr"}, {"GETDEL", "sr"},
		{"GETEX", "a", "EX", "100"}, {"GETEX", "a", "PERSIST"}, {"GETEX", "a", "PERSIST"},
		{"GETEX", "a", "PXAT", "1"}, {"EXPIRE", "b", "100"}, {"PEXPIRE", "b", "99000", "GT"}, {"PEXPIRE", "b", "200000", "GT"},
		{"EXPIRE", "b", "10", "GT"}, {"PERSIST", "b"}, {"PERSIST", "b"}, {"EXPIRE", "b", "-1"},
		{"DEL", "c", "nosuch", "m"}, {"UNLINK", "n1"}, {"RENAME", "n2", "r"},
		{"SET", "r2", "x"}, {"RENAME", "r", "r2"}, {"RENAMENX", "r2", "r3"},
		{"COPY", "r3", "cp"}, {"COPY", "r3", "cp", "REPLACE"}, {"COPY", "r3", "cp", "DB", "1"},
		{"MOVE", "r3", "2"}, {"SETBIT", "bits", "0", "1"}, {"SETBIT", "bits", "0", "1"},
		{"SETBIT", "bits", "100", "0"}, {"SETBIT", "bits", "100", "0"}, {"SETBIT", "bits", "0", "0"},
		{"BITOP", "NOT", "bo", "bits"}, {"BITOP", "AND", "bo", "nosuch"}, {"BITOP", "AND", "bo", "nosuch"},
		{"LCS", "bits", "ap"}, {"BITFIELD", "bf", "OVERFLOW", "FAIL", "SET", "u2", "0", "9"},
		{"BITFIELD", "bf", "SET", "u2", "0", "1", "INCRBY", "u2", "0", "1"}, {"BITFIELD", "bf", "GET", "u2", "0"},
		{"RPUSH", "sl", "2", "1"}, {"SORT", "sl", "STORE", "sd"}, {"SORT", "sl", "STORE", "sd"},
		{"SORT", "nosuch", "STORE", "sd"},
	} {
		p.Do(cmd...)
		drainEvents(t, p, sub)
	}
	// The key expires by itself, on each server at its own moment: its
	// events are compared once both have reclaimed it. Redis reclaims it
	// on the read waitExpired makes; lockkv hides it at once and reclaims
	// it from its cron, or on a write, so the DEL (which finds nothing on
	// either) reclaims it there if the cron has not yet.
	p.Do("SET", "short", "v", "PX", "1")
	p.waitExpired("short")
	p.Do("DEL", "short")
	drainEvents(t, p, sub)
	p.Do("FLUSHALL")
	drainEvents(t, p, sub)
}

func TestStringEncoding(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "probe", "1")
	p.Do("OBJECT", "ENCODING", "probe")
	for _, v := range []string{"1", "0", "-1", "12345", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "01", "-0", "+1", " 1", "abc", "", "1.5",
		"12345678901234567890123456789012345678901234", "123456789012345678901234567890123456789012345"} {
		p.Do("SET", "k", v)
		p.Do("OBJECT", "ENCODING", "k")
	}
	for _, cmd := range [][]string{
		{"SET", "s", "abc"}, {"APPEND", "s", "d"}, {"SET", "s2", "5"}, {"APPEND", "s2", "5"},
		{"APPEND", "s3", "123"}, {"SETRANGE", "s4", "0", "1"}, {"SET", "s5", "12"},
		{"SETRANGE", "s5", "0", "3"}, {"INCR", "s5"}, {"INCR", "s6"}, {"SET", "f", "2"},
		{"INCRBYFLOAT", "f", "1"}, {"INCRBYFLOAT", "f2", "1.5"}, {"INCR", "f"},
		{"SETEX", "x", "100", "12"}, {"GETSET", "y", "12"}, {"MSET", "z", "12", "z2", "ab"},
		{"COPY", "s", "s7"}, {"COPY", "s2", "s8"}, {"COPY", "f2", "s9"}, {"SET", "big", string(make([]byte, 100))},
	} {
		p.Do(cmd...)
	}
	for _, k := range []string{"s", "s2", "s3", "s4", "s5", "s6", "f", "f2", "x", "y", "z", "z2", "s7", "s8", "s9", "big"} {
		p.Do("OBJECT", "ENCODING", k)
	}
}

func TestKeysStringsRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	for _, cmd := range [][]string{
		{"GET", "nosuch"}, {"SET", "k", "v"}, {"SET", "k", "w", "NX"}, {"SET", "k", "w", "GET"},
		{"SET", "n", "w", "GET"}, {"SET", "k", "x", "XX", "GET"}, {"GETEX", "nosuch"}, {"GETDEL", "nosuch"},
		{"GETSET", "nosuch2", "1"}, {"MGET", "k", "nosuch", "n"}, {"INCRBYFLOAT", "f", "1.5"},
		{"INCR", "i"}, {"GETRANGE", "nosuch", "0", "1"}, {"TYPE", "k"},
		{"LCS", "k", "n", "IDX", "WITHMATCHLEN"}, {"LCS", "k", "n"}, {"SCAN", "0", "MATCH", "k*"},
		{"SETNX", "k", "1"}, {"EXPIRE", "k", "100"}, {"TTL", "nosuch"}, {"RENAME", "nosuch", "x"},
		{"COPY", "k", "k2"}, {"FLUSHDB"}, {"RANDOMKEY"}, {"SCAN", "0"}, {"KEYS", "*"},
	} {
		p.Do(cmd...)
	}
	p.Do("SET", "only", "1")
	p.Do("RANDOMKEY")
	p.Do("SET", "other", "1")
	p.DoShape("RANDOMKEY")
}

// TestKeysKeymiss: read commands on missing keys fire "keymiss"; writes
// do not.
func TestKeysKeymiss(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "Em")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__keyevent@*__:*")
	subscribeDrain(sub)
	p.Do("SET", "exists", "1")
	for _, cmd := range [][]string{
		{"GET", "m1"}, {"GETDEL", "m2"}, {"GETEX", "m3"}, {"GETSET", "m4", "v"}, {"SET", "m5", "v", "GET"},
		{"MGET", "m6", "exists", "m7"}, {"STRLEN", "m8"}, {"GETRANGE", "m9", "0", "1"}, {"EXISTS", "m10"},
		{"TYPE", "m11"}, {"TTL", "m12"}, {"PTTL", "m13"}, {"EXPIRETIME", "m14"}, {"TOUCH", "m15"},
		{"COPY", "m16", "x"}, {"RENAME", "m17", "x"}, {"MOVE", "m18", "1"}, {"EXPIRE", "m19", "10"},
		{"PERSIST", "m20"}, {"DEL", "m21"}, {"INCR", "m22"}, {"APPEND", "m23", "x"}, {"SETRANGE", "m24", "0", ""},
		{"GETBIT", "m25", "0"}, {"BITCOUNT", "m26"}, {"BITPOS", "m27", "1"}, {"BITOP", "AND", "d", "m28"},
		{"BITFIELD", "m29", "GET", "u8", "0"}, {"BITFIELD_RO", "m30", "GET", "u8", "0"}, {"LCS", "m31", "exists"},
		{"SORT", "m32"}, {"SORT", "exists2"}, {"SETNX", "m33", "v"}, {"INCRBYFLOAT", "m34", "1"},
	} {
		p.Do(cmd...)
		drainEvents(t, p, sub)
	}
}
