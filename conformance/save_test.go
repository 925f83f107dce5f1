package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
)

// SAVE writes an RDB file redis-server 7.0.15 loads, and lockkv loads the
// dump.rdb redis-server saves: the same keys, values, encodings, TTLs and
// function libraries on both sides.

// startOwnLockkv runs a lockkv of the test's own.
func startOwnLockkv(t *testing.T, cfg lockkv.Config) *Conn {
	t.Helper()
	cfg.EnableDebugCommand = "yes"
	srv, err := lockkv.NewServer(cfg)
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		t.Fatalf("lockkv: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func startRedisT(t *testing.T, dir string) *Conn {
	t.Helper()
	addr, stop, err := startRedisIn(dir)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
		t.Fatalf("redis-server: %v\n%s", err, log)
	}
	t.Cleanup(stop)
	c, err := Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

const saveLib = "#!lua name=savelib\nredis.register_function('f1', function() return 1 end)"

// fillForSave writes the fixtures, keys with TTLs and a function library
// on both servers of p; it returns the keys of database 0.
func fillForSave(p *Pair) []string {
	p.t.Helper()
	keys := dumpFixtures(p)
	p.Do("SET", "ttl:short", "v", "PX", "500000")
	p.Do("HSET", "ttl:lock", "uuid:1", "1")
	p.Do("PEXPIRE", "ttl:lock", "30000")
	p.Do("SET", "ttl:gone", "v", "PX", "1")
	p.Do("FUNCTION", "LOAD", saveLib)
	p.Do("SELECT", "3")
	p.Do("SET", "in3", "three")
	p.Do("SELECT", "0")
	return append(keys, "ttl:short", "ttl:lock", "ttl:gone")
}

// compareSaved compares two servers that loaded the same RDB file.
func compareSaved(p *Pair, keys []string) {
	p.t.Helper()
	p.DoSorted("KEYS", "*")
	for _, k := range keys {
		sameKey(p, k)
		p.DoApprox(1000, "PTTL", k)
	}
	p.Do("FUNCTION", "LIST", "WITHCODE")
	p.Do("SELECT", "3")
	p.DoSorted("KEYS", "*")
	p.Do("GET", "in3")
	p.Do("SELECT", "0")
}

// sameValues compares the contents of keys on two servers (a source and
// what loaded its file: RDB loading re-encodes strings, as in Redis).
func sameValues(p *Pair, keys []string) {
	p.t.Helper()
	p.DoSorted("KEYS", "*")
	for _, k := range keys {
		p.Do("TYPE", k)
		switch p.R.MustDo(p.t, "TYPE", k).Str {
		case "string":
			p.Do("GET", k)
		case "list":
			p.Do("LRANGE", k, "0", "-1")
		case "hash":
			p.DoPairsSorted("HGETALL", k)
		case "set":
			p.DoSorted("SMEMBERS", k)
		case "zset":
			p.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
		}
		p.DoApprox(1000, "PTTL", k)
	}
}

func TestSaveLoadsInRedis(t *testing.T) {
	ref := NewPair(t) // the reference Redis, for the skip when there is none
	dir := t.TempDir()
	src := startOwnLockkv(t, lockkv.Config{EnableProtectedConfigs: "yes", Settings: []lockkv.Setting{{Name: "dir", Args: []string{dir}}}})
	keys := fillForSave(&Pair{t: t, L: src, R: ref.R})
	if v := src.MustDo(t, "SAVE"); v.Str != "OK" {
		t.Fatalf("SAVE: %v", v)
	}
	if v := src.MustDo(t, "LASTSAVE"); v.Kind != ':' {
		t.Fatalf("LASTSAVE: %v", v)
	}
	// redis-server loads it; so does lockkv, alike; and it holds what
	// the source holds.
	r := startRedisT(t, dir)
	l := startOwnLockkv(t, lockkv.Config{LoadRDB: filepath.Join(dir, "dump.rdb")})
	compareSaved(&Pair{t: t, L: l, R: r}, keys)
	sameValues(&Pair{t: t, L: src, R: r}, keys)

	// BGSAVE writes the same state.
	src.MustDo(t, "CONFIG", "SET", "dbfilename", "bg.rdb")
	if v := src.MustDo(t, "BGSAVE"); v.Str != "Background saving started" {
		t.Fatalf("BGSAVE: %v", v)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if v := src.MustDo(t, "INFO", "persistence"); infoField(v.Str, "rdb_bgsave_in_progress") != "0" {
			return errors.New("BGSAVE still in progress")
		}
		return nil
	})
	if v := src.MustDo(t, "INFO", "persistence"); infoField(v.Str, "rdb_last_bgsave_status") != "ok" || infoField(v.Str, "rdb_changes_since_last_save") != "0" {
		t.Fatalf("BGSAVE failed, or left changes unsaved: %s", v.Str)
	}
	dir2 := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "bg.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir2, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sameValues(&Pair{t: t, L: src, R: startRedisT(t, dir2)}, keys)
}

func TestLoadRedisDump(t *testing.T) {
	ref := NewPair(t)
	dir := t.TempDir()
	src := startRedisT(t, dir)
	keys := fillForSave(&Pair{t: t, L: ref.L, R: src})
	ref.L.MustDo(t, "FUNCTION", "FLUSH")
	if v := src.MustDo(t, "SAVE"); v.Str != "OK" {
		t.Fatalf("redis SAVE: %v", v)
	}
	l := startOwnLockkv(t, lockkv.Config{LoadRDB: filepath.Join(dir, "dump.rdb")})
	r := startRedisT(t, dir)
	for _, f := range []string{"rdb_last_load_keys_loaded", "rdb_last_load_keys_expired"} {
		lv, rv := infoField(l.MustDo(t, "INFO", "persistence").Str, f), infoField(r.MustDo(t, "INFO", "persistence").Str, f)
		if lv != rv {
			t.Errorf("%s: lockkv %s, redis %s", f, lv, rv)
		}
	}
	compareSaved(&Pair{t: t, L: l, R: r}, keys)
	sameValues(&Pair{t: t, L: l, R: src}, keys)
}

func TestSaveErrors(t *testing.T) {
	p := NewPair(t)
	p.Do("SAVE", "x")
	p.Do("BGSAVE", "x")
	p.Do("BGSAVE", "SCHEDULE", "x")
	p.Do("CONFIG", "SET", "dbfilename", "a/b")
	p.Do("MULTI")
	p.Do("SAVE")
	p.Do("DISCARD")
}
