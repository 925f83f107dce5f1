package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/scriptcache"
	"github.com/lockkv/lockkv/store"
)

// snapshotBytes returns what WriteTo writes for a snapshot of te's engine.
func snapshotBytes(t testing.TB, e *engine.Engine, meta string) []byte {
	t.Helper()
	var buf bytes.Buffer
	s := e.Snapshot([]byte(meta))
	n, err := s.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) || n != s.Size() {
		t.Fatalf("WriteTo = %d, %v; wrote %d, Size %d", n, err, buf.Len(), s.Size())
	}
	return buf.Bytes()
}

// restored returns a new engine holding the state restored from b.
func restored(t *testing.T, b []byte, wantMeta string) *enginetest.Engine {
	t.Helper()
	te := enginetest.New(t)
	meta, err := te.E.Restore(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if string(meta) != wantMeta {
		t.Fatalf("meta %q, want %q", meta, wantMeta)
	}
	return te
}

// fill gives te every type in every encoding, deadlines (one already
// passed but not reclaimed), several databases, scripts and functions.
func fill(te *enginetest.Engine) { fillEngine(te.E, te.Clock) }

func fillEngine(e *engine.Engine, clock *enginetest.Clock) {
	cl := e.NewClient(&enginetest.Conn{})
	do := func(args ...string) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		e.Call(cl, a)
		e.FlushOutputs()
	}
	do("SET", "s:int", "12345")
	do("SET", "s:embstr", "hello")
	do("SET", "s:raw", strings.Repeat("r", 50))
	do("SET", "s:appended", "ab")
	do("APPEND", "s:appended", "c") // raw although short
	do("SET", "s:float", "1.5")
	do("INCRBYFLOAT", "s:float", "1.5") // "3", never int-encoded
	do("SET", "s:bin", "\x00\xff\r\n")
	do("HSET", "h:lp", "z", "1", "a", "2", "m", "3")
	do("HINCRBY", "h:lp", "a", "40")
	do("HSET", "h:lock", "uuid:1", "1")
	do("PEXPIRE", "h:lock", "30000")
	do("HSET", "h:ht", "f", strings.Repeat("v", 65))
	for i := 0; i < 20; i++ {
		do("HSET", "h:ht", "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	do("RPUSH", "l", "a", "b", "", "c")
	do("LPUSH", "l", "z")
	do("SADD", "set:int", "5", "-3", "100", "0")
	do("SADD", "set:ht", "x", "y", "z", "1")
	do("ZADD", "z:lp", "2", "b", "1", "a", "-inf", "lo", "+inf", "hi", "1", "aa")
	do("ZADD", "z:sl", "1.25", strings.Repeat("m", 70), "-0.5", "neg", "3", "c")
	do("SET", "gone", "v", "PX", "100") // expired below, not reclaimed
	do("SELECT", "3")
	do("SET", "db3", "x", "EX", "100")
	do("SELECT", "15")
	do("RPUSH", "db15", "1")
	do("SCRIPT", "LOAD", "return 'loaded'")
	do("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 'ro'")
	do("EVAL", "return 1", "0")
	do("EVAL", "return 2", "0")
	do("EVAL", "return 3", "0")
	do("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0") // "return 1" is now the most recent
	do("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return 'one' end)")
	do("FUNCTION", "LOAD", "#!lua name=lib0\nredis.register_function{function_name='f0', callback=function() return 0 end, flags={'no-writes'}}")
	clock.T = clock.T.Add(200 * time.Millisecond)
}

// observe returns what clients can see of te's state: per key its type,
// encoding, deadline and value (hashtable elements sorted, the only order
// Redis leaves unspecified), and the scripts and functions.
func observe(te *enginetest.Engine) string {
	cl, conn := te.Client()
	do := func(args ...string) string { te.T.Helper(); return te.Do(cl, conn, args...) }
	var out strings.Builder
	for db := range te.E.DBs {
		var keys []string
		te.E.DBs[db].Range(func(k string, _ *store.Entry) bool { keys = append(keys, k); return true })
		sort.Strings(keys)
		do("SELECT", strconv.Itoa(db))
		for _, k := range keys {
			en := te.E.DBs[db].Peek(k)
			typ := en.Value.Type().String()
			fmt.Fprintf(&out, "%d %q %s %s deadline=%d ", db, k, typ, en.Value.Encoding(), en.Expire)
			if en.Expired(te.E.NowMs()) {
				out.WriteString("(expired)\n")
				continue
			}
			fmt.Fprintf(&out, "%q ", do("OBJECT", "ENCODING", k))
			var v string
			switch typ {
			case "string":
				v = do("GET", k)
			case "hash":
				v = do("HGETALL", k)
			case "list":
				v = do("LRANGE", k, "0", "-1")
			case "set":
				v = do("SMEMBERS", k)
			case "zset":
				v = do("ZRANGE", k, "0", "-1", "WITHSCORES")
			}
			if en.Value.Encoding() == "hashtable" {
				lines := strings.Split(v, "\r\n")
				sort.Strings(lines)
				v = strings.Join(lines, "|")
			}
			fmt.Fprintf(&out, "%q\n", v)
		}
	}
	do("SELECT", "0")
	fmt.Fprintf(&out, "%q\n", do("FUNCTION", "LIST", "WITHCODE"))
	fmt.Fprintf(&out, "%q\n", do("FUNCTION", "DUMP"))
	fmt.Fprintf(&out, "%q\n", do("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "7f923f79fe76194c868d7e1d0820de36700eb649", "a9f8c8a2b8e5c0f5b0d3c8a0e0e0e0e0e0e0e0e0"))
	fmt.Fprintf(&out, "%q\n", do("FCALL", "f1", "0"))
	fmt.Fprintf(&out, "%q\n", do("FCALL_RO", "f0", "0"))
	return out.String()
}

func evalOrder(e *engine.Engine) string {
	cache := e.ScriptCacheForTest()
	if cache == nil {
		return ""
	}
	loaded, eval := cache.Entries()
	var s []string
	for _, l := range [][]*scriptcache.Entry{loaded, eval} {
		for _, ent := range l {
			s = append(s, ent.Body)
		}
		s = append(s, "|")
	}
	return strings.Join(s, ",")
}

func TestSnapshotRoundTrip(t *testing.T) {
	src := enginetest.New(t)
	fill(src)
	b := snapshotBytes(t, src.E, "raft index 42")
	dst := restored(t, b, "raft index 42")
	dst.Clock.T = src.Clock.T
	if got, want := observe(dst), observe(src); got != want {
		t.Fatalf("restored state differs:\n got %s\nwant %s", got, want)
	}
	if got, want := evalOrder(dst.E), evalOrder(src.E); got != want {
		t.Fatalf("script cache %s, want %s", got, want)
	}
	if dst.E.Digest() != src.E.Digest() {
		t.Fatal("digest differs after a round trip")
	}
	// The expired key kept its deadline; the restored engine reclaims it.
	if en := dst.E.DBs[0].Peek("gone"); en == nil || en.Expire != 1_000_100 {
		t.Fatalf("expired key %+v", en)
	}
	// The snapshot of the restored engine is the same state again.
	if again := snapshotBytes(t, dst.E, "m"); len(again) != len(b)-len("raft index 42")+1 {
		t.Fatalf("second snapshot is %d bytes, first %d", len(again), len(b))
	}
	// Scripts run by SHA, and the restored listpack keeps its order after
	// in-place updates.
	cl, conn := dst.Client()
	dst.Expect(cl, conn, "$6\r\nloaded\r\n", "EVALSHA", sha1hex("return 'loaded'"), "0")
	dst.Expect(cl, conn, ":43\r\n", "HINCRBY", "h:lp", "a", "1")
	dst.Expect(cl, conn, "*6\r\n$1\r\nz\r\n$1\r\n1\r\n$1\r\na\r\n$2\r\n43\r\n$1\r\nm\r\n$1\r\n3\r\n", "HGETALL", "h:lp")
}

func sha1hex(s string) string { return scriptcache.SHA1Hex([]byte(s)) }

func TestSnapshotEmptyEngine(t *testing.T) {
	src := enginetest.New(t)
	b := snapshotBytes(t, src.E, "")
	dst := enginetest.New(t)
	fill(dst)
	if _, err := dst.E.Restore(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if dst.E.Digest() != src.E.Digest() {
		t.Fatal("restoring an empty snapshot left state behind")
	}
	for i, db := range dst.E.DBs {
		if db.Len() != 0 {
			t.Fatalf("db %d has %d keys", i, db.Len())
		}
	}
	cl, conn := dst.Client()
	dst.Expect(cl, conn, "*0\r\n", "FUNCTION", "LIST")
	dst.Expect(cl, conn, "*1\r\n:0\r\n", "SCRIPT", "EXISTS", sha1hex("return 'loaded'"))
	dst.Expect(cl, conn, "$-1\r\n", "GET", "s:int")
}

// TestSnapshotIsPointInTime: writes after Snapshot, including in-place
// ones (HINCRBY rewrites a listpack's digits), never reach the stream,
// even while WriteTo runs concurrently with them.
func TestSnapshotIsPointInTime(t *testing.T) {
	src := enginetest.New(t)
	fill(src)
	want := observe(src)
	digest := src.E.Digest()
	snap := src.E.Snapshot([]byte("m"))
	var buf bytes.Buffer
	done := make(chan error)
	go func() {
		_, err := snap.WriteTo(&buf)
		done <- err
	}()
	cl, conn := src.Client()
	for i := 0; i < 100; i++ {
		src.Do(cl, conn, "HINCRBY", "h:lock", "uuid:1", "1")
		src.Do(cl, conn, "SETRANGE", "s:raw", "0", "X")
		src.Do(cl, conn, "ZINCRBY", "z:lp", "1", "a")
		src.Do(cl, conn, "LSET", "l", "0", "changed")
	}
	src.Do(cl, conn, "PEXPIRE", "h:lp", "5")
	src.Do(cl, conn, "DEL", "set:int")
	src.Do(cl, conn, "SCRIPT", "FLUSH")
	src.Do(cl, conn, "FUNCTION", "FLUSH")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	dst := restored(t, buf.Bytes(), "m")
	dst.Clock.T = src.Clock.T
	if got := observe(dst); got != want {
		t.Fatalf("later writes leaked into the snapshot:\n got %s\nwant %s", got, want)
	}
	if dst.E.Digest() != digest {
		t.Fatal("digest is not the one at Snapshot time")
	}
}

func TestRestoreRejectsBadStreams(t *testing.T) {
	src := enginetest.New(t)
	fill(src)
	good := snapshotBytes(t, src.E, "meta")
	dst := enginetest.New(t)
	cl, conn := dst.Client()
	dst.Do(cl, conn, "HSET", "mine", "f", "v")
	dst.Do(cl, conn, "SCRIPT", "LOAD", "return 'mine'")
	before := dst.E.Digest()
	try := func(name string, b []byte) {
		t.Helper()
		if _, err := dst.E.Restore(bytes.NewReader(b)); err == nil {
			t.Fatalf("%s: Restore accepted it", name)
		}
		if dst.E.Digest() != before {
			t.Fatalf("%s: a failed Restore changed the engine", name)
		}
	}
	for n := 0; n < len(good); n += 1 + n/64 {
		try(fmt.Sprintf("truncated to %d", n), good[:n])
	}
	try("without its last byte", good[:len(good)-1])
	for i := 0; i < len(good); i += 1 + i/64 {
		b := bytes.Clone(good)
		b[i] ^= 0x20
		try(fmt.Sprintf("byte %d flipped", i), b)
	}
	try("trailing data", append(bytes.Clone(good), 0))
	try("empty", nil)
	// A database this server does not have.
	cfg := config.NewConfig()
	cfg.Databases = 4
	small := enginetest.NewWith(t, engine.Options{Config: cfg})
	if _, err := small.E.Restore(bytes.NewReader(good)); err == nil || !errors.Is(err, engine.ErrSnapshotFormat) {
		t.Fatalf("16-database snapshot into 4 databases: %v", err)
	}
	if _, err := dst.E.Restore(bytes.NewReader(good)); err != nil {
		t.Fatalf("the good stream after the bad ones: %v", err)
	}
}

func TestDigestSeesEveryChange(t *testing.T) {
	base := enginetest.New(t)
	fill(base)
	snap := snapshotBytes(t, base.E, "")
	digest := base.E.Digest()
	for _, change := range [][]string{
		{"HINCRBY", "h:lock", "uuid:1", "1"},
		{"HSET", "h:lp", "a", "42"}, // same value: no change
		{"PEXPIRE", "h:lock", "29999"},
		{"PERSIST", "h:lock"},
		{"SETRANGE", "s:embstr", "0", "h"}, // same bytes, raw encoding
		{"SET", "s:embstr", "hello", "KEEPTTL"},
		{"RENAME", "l", "l2"},
		{"LPUSH", "l", "x"},
		{"SADD", "set:int", "7"},
		{"SADD", "set:ht", "w"},
		{"HSET", "h:ht", "new", "1"},
		{"ZADD", "z:lp", "3", "a"},
		{"ZADD", "z:sl", "4", "neg"},
		{"MOVE", "s:int", "1"},
		{"SCRIPT", "LOAD", "return 'new'"},
		{"EVALSHA", sha1hex("return 2"), "0"}, // LRU order
		{"FUNCTION", "DELETE", "lib0"},
		{"DEL", "gone"},
	} {
		te := restored(t, snap, "")
		te.Clock.T = base.Clock.T
		cl, conn := te.Client()
		te.Do(cl, conn, change...)
		changed := te.E.Digest() != digest
		if noChange := change[0] == "HSET" && change[1] == "h:lp" || change[0] == "SET"; changed == noChange {
			t.Errorf("%q: digest changed = %v", change, changed)
		}
	}
}

// TestRestoreResetsClientState: WATCHers fail, tracking clients drop
// their caches, blocked clients are served from the new keyspace.
func TestRestoreResetsClientState(t *testing.T) {
	src := enginetest.New(t)
	scl, sconn := src.Client()
	src.Do(scl, sconn, "RPUSH", "queue", "job")
	src.Do(scl, sconn, "SET", "k", "new")
	snap := snapshotBytes(t, src.E, "")

	te := enginetest.New(t)
	w, wconn := te.Client()
	tr, trconn := te.Client()
	bl, blconn := te.Client()
	te.Do(w, wconn, "SET", "k", "old")
	te.Do(w, wconn, "WATCH", "k")
	te.Do(tr, trconn, "HELLO", "3")
	te.Do(tr, trconn, "CLIENT", "TRACKING", "ON")
	te.Do(tr, trconn, "GET", "k")
	te.Do(bl, blconn, "BLPOP", "queue", "0")
	if _, err := te.E.Restore(bytes.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	te.E.FlushOutputs()
	if got := string(blconn.Out); got != "*2\r\n$5\r\nqueue\r\n$3\r\njob\r\n" {
		t.Errorf("blocked client got %q", got)
	}
	if got := string(trconn.Out); got != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
		t.Errorf("tracking client got %q", got)
	}
	te.Do(w, wconn, "MULTI")
	te.Do(w, wconn, "SET", "k", "mine")
	te.Expect(w, wconn, "*-1\r\n", "EXEC")
	te.Expect(w, wconn, "$3\r\nnew\r\n", "GET", "k")
}

func FuzzRestore(f *testing.F) {
	clock := &enginetest.Clock{T: time.UnixMilli(1_000_000)}
	e := enginetest.NewWith(f, engine.Options{Clock: clock}).E
	fillEngine(e, clock)
	good := snapshotBytes(f, e, "meta")
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(snapshotBytes(f, enginetest.NewWith(f, engine.Options{Clock: clock}).E, ""))
	f.Add([]byte("LOCKKVSN"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e := enginetest.New(t).E
		before := e.Digest()
		if _, err := e.Restore(bytes.NewReader(b)); err != nil && e.Digest() != before {
			t.Fatal("a failed Restore changed the engine")
		}
	})
}

// TestSnapshotLargeDatabase covers the sharded encoding of a large
// database (see encodeKeys).
func TestSnapshotLargeDatabase(t *testing.T) {
	src := lockHashEngine(t, 50_000)
	b := snapshotBytes(t, src, "")
	dst := restored(t, b, "")
	if dst.E.DBs[0].Len() != 50_000 || dst.E.Digest() != src.Digest() {
		t.Fatalf("restored %d keys, digest equal %v", dst.E.DBs[0].Len(), dst.E.Digest() == src.Digest())
	}
}
