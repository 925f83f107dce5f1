package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
)

// infoFields parses INFO text into section titles and fields.
func infoFields(s string) (sections []string, fields map[string]string) {
	fields = map[string]string{}
	for _, l := range strings.Split(strings.TrimPrefix(s, "txt:"), "\r\n") {
		if strings.HasPrefix(l, "# ") {
			sections = append(sections, l[2:])
			continue
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			fields[k] = v
		}
	}
	return sections, fields
}

// infoMatches compares INFO replies: the same sections, every Redis field
// present, and the listed fields equal.
func (p *Pair) infoMatches(args []string, must ...string) {
	p.t.Helper()
	lv, rv := p.DoShape(args...)
	ls, lf := infoFields(lv.Str)
	rs, rf := infoFields(rv.Str)
	same := strings.Join(ls, ",") == strings.Join(rs, ",")
	for k := range rf {
		if _, ok := lf[k]; !ok && !strings.HasPrefix(k, "cmdstat_") && !strings.HasPrefix(k, "errorstat_") &&
			!strings.HasPrefix(k, "latency_percentiles_") && !strings.HasPrefix(k, "db") {
			p.t.Errorf("INFO %v: lockkv lacks field %s", args[1:], k)
			same = false
		}
	}
	for _, k := range must {
		if lf[k] != rf[k] {
			p.t.Errorf("INFO field %s: lockkv %q, redis %q", k, lf[k], rf[k])
			same = false
		}
	}
	p.check(args, lv, rv, same)
}

var infoMust = []string{"redis_version", "redis_mode", "arch_bits", "os", "role", "connected_slaves",
	"master_repl_offset", "aof_enabled", "loading", "cluster_enabled", "maxmemory", "maxmemory_policy",
	"hz", "configured_hz", "rdb_bgsave_in_progress", "master_failover_state", "second_repl_offset",
	"repl_backlog_active", "maxclients", "rdb_last_bgsave_status", "aof_rewrite_in_progress"}

func TestServerINFO(t *testing.T) {
	p := Connect(t)
	p.infoMatches([]string{"INFO"}, infoMust...)
	p.infoMatches([]string{"INFO", "default"}, infoMust...)
	p.infoMatches([]string{"INFO", "all"}, infoMust...)
	p.infoMatches([]string{"INFO", "everything"}, infoMust...)
	p.infoMatches([]string{"INFO", "server"}, "redis_version", "redis_mode")
	p.infoMatches([]string{"INFO", "SERVER", "replication"}, "redis_version", "role", "connected_slaves")
	p.infoMatches([]string{"INFO", "replication"}, "role", "connected_slaves", "master_repl_offset")
	p.infoMatches([]string{"INFO", "persistence"}, "aof_enabled", "loading")
	p.infoMatches([]string{"INFO", "clients"}, "maxclients")
	p.infoMatches([]string{"INFO", "memory"}, "maxmemory", "maxmemory_policy")
	p.infoMatches([]string{"INFO", "stats"})
	p.infoMatches([]string{"INFO", "cpu"})
	p.infoMatches([]string{"INFO", "cluster"}, "cluster_enabled")
	p.infoMatches([]string{"INFO", "commandstats"})
	p.infoMatches([]string{"INFO", "keyspace"})
	p.Do("INFO", "nosuchsection")
	p.DoShape("HELLO", "3")
	p.infoMatches([]string{"INFO", "server"}, "redis_version")
	p.Do("INFO", "nosuchsection")
}

func TestServerCONFIG(t *testing.T) {
	p := Connect(t)
	for _, name := range []string{"databases", "maxclients", "notify-keyspace-events",
		"proto-max-bulk-len", "timeout", "hz", "hash-max-listpack-entries", "hash-max-ziplist-entries",
		"hash-max-listpack-value", "set-max-intset-entries", "zset-max-listpack-entries",
		"zset-max-ziplist-value", "list-max-listpack-size", "list-max-ziplist-size", "list-compress-depth",
		"lua-time-limit", "busy-reply-threshold", "maxmemory", "maxmemory-policy", "appendonly",
		"save", "appendfsync", "maxmemory-samples", "slave-read-only", "replica-read-only",
		"min-slaves-to-write", "loglevel", "lfu-log-factor", "tcp-keepalive", "requirepass",
		"MAXMEMORY", "Hz", "nosuch"} {
		p.Do("CONFIG", "GET", name)
	}
	p.DoSorted("CONFIG", "GET", "maxmemory", "maxmemory", "hz")
	p.DoPairsSorted("CONFIG", "GET", "*max-*-entries*")
	p.DoPairsSorted("CONFIG", "GET", "*ziplist*")
	p.DoPairsSorted("CONFIG", "GET", "hash-max-*")
	p.DoPairsSorted("CONFIG", "GET", "lua-time-limi?")
	p.DoPairsSorted("CONFIG", "GET", "notify-keyspace-event[rs]")
	p.Do("CONFIG", "GET")
	p.Do("CONFIG")
	p.Do("CONFIG", "FOO")
	p.Do("CONFIG", "HELP")

	set := func(args ...string) { p.Do(append([]string{"CONFIG", "SET"}, args...)...) }
	set("foo", "bar")
	set("maxmemory", "x")
	set("maxmemory", "-1")
	set("maxmemory-policy", "foo")
	set("appendfsync", "foo")
	set("databases", "3")
	set("timeout", "-1")
	set("maxmemory", "1", "maxmemory", "2")
	set("maxmemory", "1", "MAXMEMORY", "2")
	set("hz", "11", "foo", "1")
	set("hz", "11", "maxmemory", "x")
	p.Do("CONFIG", "GET", "hz")
	set("notify-keyspace-events", "Q")
	set("appendonly", "maybe")
	set("maxclients", "0")
	set("a")
	set("a", "b", "c")
	set("dir", "/nonexist")
	set("dbfilename", "x.rdb")
	set("save", "x")
	set("save", "1 2 3")
	set("proto-max-bulk-len", "10")
	set("list-max-ziplist-size", "x")
	set("slowlog-log-slower-than", "-5")
	set("maxmemory-samples", "0")
	set("loglevel", "foo")
	set("client-output-buffer-limit", "foo")
	set("replicaof", "no one")

	// Valid changes, read back, then restored.
	set("hz", "0")
	p.Do("CONFIG", "GET", "hz")
	set("hz", "1000")
	p.Do("CONFIG", "GET", "hz")
	set("hz", "10")
	set("maxmemory", "1kb")
	p.Do("CONFIG", "GET", "maxmemory")
	// lockkv never evicts: it refuses a maxmemory limit with an evicting
	// policy (TestMaxmemoryPolicyRefused), so the two are set apart here.
	set("maxmemory", "1GB", "maxmemory-policy", "NOEVICTION")
	p.Do("CONFIG", "GET", "maxmemory")
	set("maxmemory", "0", "maxmemory-policy", "ALLKEYS-LRU")
	p.Do("CONFIG", "GET", "maxmemory-policy")
	set("maxmemory", "0", "maxmemory-policy", "noeviction")
	set("notify-keyspace-events", "KEA")
	p.Do("CONFIG", "GET", "notify-keyspace-events")
	set("notify-keyspace-events", "Elgx")
	p.Do("CONFIG", "GET", "notify-keyspace-events")
	set("notify-keyspace-events", "")
	set("hash-max-ziplist-entries", "129")
	p.Do("CONFIG", "GET", "hash-max-listpack-entries")
	set("hash-max-ziplist-entries", "512")
	set("lua-time-limit", "1000")
	p.Do("CONFIG", "GET", "busy-reply-threshold")
	set("busy-reply-threshold", "5000")
	// lockkv keeps no AOF or RDB: it refuses turning them on.
	configSetUnsupported(t, p, "appendonly", "YES")
	p.infoMatches([]string{"INFO", "persistence"}, "aof_enabled")
	configSetUnsupported(t, p, "appendonly", "no")
	configSetUnsupported(t, p, "save", "3600 1 300 100")
	set("save", "")
	set("timeout", "0")
	set("slave-read-only", "yes")
	set("min-slaves-to-write", "0")
	set("proto-max-bulk-len", "512mb")
	p.Do("CONFIG", "GET", "proto-max-bulk-len")

	p.Do("CONFIG", "RESETSTAT")
	p.Do("CONFIG", "RESETSTAT", "x")
	p.Do("CONFIG", "REWRITE")
}

func TestServerCONFIGTimeout(t *testing.T) {
	p := Connect(t)
	p.Do("CONFIG", "SET", "timeout", "1")
	t.Cleanup(func() { Connect(t).Do("CONFIG", "SET", "timeout", "0") })
	idle := Connect(t)
	idle.Do("PING")
	idle.Closed(4 * time.Second)
}

// newerThan70 reports whether lockkv's command or subcommand name
// ("client|setinfo") is one Redis 7.0.15 lacks (its Spec.Origin): the
// Redis 7.2 commands lock clients send, and lockkv's own. The
// command-table comparisons leave them out, and engine/redis72_test.go
// checks their COMMAND entries.
func newerThan70(name string) bool {
	parent, sub, found := strings.Cut(name, "|")
	s := engine.Lookup([]byte(parent))
	if s != nil && found {
		s = s.Subcommand([]byte(sub))
	}
	return s != nil && s.Origin != engine.OriginRedis70
}

func TestServerCOMMAND(t *testing.T) {
	p := Connect(t)
	// COMMAND INFO of every command both have equals Redis's in full, in
	// RESP2 and RESP3: name, arity, flags, key range, ACL categories,
	// tips, key specs and subcommands. Only the order of a container's
	// subcommands is Redis's dict order (random per process): they are
	// compared as a set, lockkv's Redis 7.2 ones left out.
	lv, _ := p.L.Do("COMMAND", "LIST")
	var names []string
	for _, e := range lv.Elems {
		names = append(names, e.Str)
	}
	if len(names) < 50 {
		t.Fatalf("COMMAND LIST has only %d names", len(names))
	}
	compared := 0
	for _, proto := range []string{"3", "2"} {
		p.Do("HELLO", proto)
		for _, name := range names {
			if newerThan70(name) {
				continue // a lockkv command Redis lacks
			}
			lv, rv := p.both([]string{"COMMAND", "INFO", name})
			if len(lv.Elems) != 1 || len(rv.Elems) != 1 {
				t.Fatalf("COMMAND INFO %s: %v, %v", name, lv, rv)
			}
			l, r := commandInfoCanonical(lv.Elems[0]), commandInfoCanonical(rv.Elems[0])
			p.check("COMMAND INFO "+name, l, r, Equal(l, r))
			compared++
		}
		// COMMAND and COMMAND INFO without names: the same entries, as a
		// set, for the commands both have.
		for _, args := range [][]string{{"COMMAND"}, {"COMMAND", "INFO"}} {
			lv, rv := p.both(args)
			l, r := commandListCanonical(lv, rv), commandListCanonical(rv, lv)
			p.check(args, l, r, Equal(l, r))
		}
	}
	if compared < 2*250 {
		t.Fatalf("compared COMMAND INFO of only %d commands", compared)
	}
	p.Do("HELLO", "2")
	// Keys and their flags come from the key specs (and Redis's getkeys
	// procs where the flags depend on the arguments).
	for _, args := range [][]string{
		{"set", "k", "v"}, {"set", "k", "v", "get"}, {"set", "k", "v", "EX", "10", "GET"},
		{"bitfield", "k", "get", "u8", "0"}, {"bitfield", "k", "get", "u8", "0", "overflow", "sat"},
		{"bitfield", "k", "set", "u8", "0", "1"}, {"bitfield", "k", "incrby", "u8", "0", "1"}, {"bitfield", "k", "foo"},
		{"bitfield_ro", "k", "get", "u8", "0"}, {"eval", "s", "2", "a", "b", "x"}, {"evalsha_ro", "s", "1", "a"},
		{"fcall", "f", "2", "a", "b"}, {"fcall_ro", "f", "1", "a"},
		{"zunionstore", "d", "2", "a", "b"}, {"zinterstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"},
		{"zdiffstore", "d", "2", "a", "b"}, {"zunion", "2", "a", "b"}, {"zinter", "2", "a", "b"}, {"zdiff", "2", "a", "b"},
		{"zintercard", "2", "a", "b"}, {"sintercard", "2", "a", "b"}, {"lmpop", "2", "a", "b", "LEFT"},
		{"blmpop", "0", "2", "a", "b", "LEFT"}, {"zmpop", "2", "a", "b", "MIN"}, {"bzmpop", "0", "2", "a", "b", "MIN"},
		{"sort", "k"}, {"sort", "k", "store", "d"}, {"sort", "k", "by", "w_*", "get", "o_*", "store", "d"}, {"sort_ro", "k"},
		{"del", "a", "b"}, {"unlink", "a", "b"}, {"exists", "a"}, {"touch", "a", "b"}, {"copy", "a", "b"},
		{"lmove", "a", "b", "LEFT", "RIGHT"}, {"blmove", "a", "b", "LEFT", "RIGHT", "0"}, {"rpoplpush", "a", "b"},
		{"brpoplpush", "a", "b", "0"}, {"rename", "a", "b"}, {"renamenx", "a", "b"}, {"smove", "a", "b", "m"},
		{"mset", "a", "1", "b", "2"}, {"msetnx", "a", "1", "b", "2"}, {"mget", "a", "b"}, {"getex", "k"},
		{"getdel", "k"}, {"setnx", "k", "v"}, {"setex", "k", "1", "v"}, {"psetex", "k", "1", "v"}, {"append", "k", "v"},
		{"incr", "k"}, {"setbit", "k", "1", "1"}, {"hset", "h", "f", "v"}, {"hsetnx", "h", "f", "v"}, {"hdel", "h", "f"},
		{"hexists", "h", "f"}, {"hlen", "h"}, {"hincrbyfloat", "h", "f", "1"}, {"sadd", "s", "m"}, {"srem", "s", "m"},
		{"spop", "s"}, {"scard", "s"}, {"sismember", "s", "m"}, {"sdiffstore", "d", "a", "b"}, {"sinterstore", "d", "a", "b"},
		{"sunionstore", "d", "a", "b"}, {"zadd", "z", "1", "m"}, {"zincrby", "z", "1", "m"}, {"zrem", "z", "m"},
		{"zpopmin", "z"}, {"bzpopmax", "a", "b", "0"}, {"zremrangebyscore", "z", "0", "1"}, {"zrangestore", "d", "z", "0", "1"},
		{"zcard", "z"}, {"strlen", "k"}, {"type", "k"}, {"move", "k", "1"}, {"bitop", "and", "d", "a", "b"},
		{"watch", "a", "b"}, {"object", "encoding", "k"}, {"memory", "usage", "k"}, {"blpop", "a", "b", "0"},
		{"spublish", "c", "m"}, {"ssubscribe", "c"},
	} {
		p.Do(append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...)...)
	}
	p.Do("COMMAND", "INFO", "get", "nosuch", "GET", "config|get", "config|nosuch")
	p.Do("COMMAND", "INFO", "get")
	p.Do("COMMAND", "INFO", "client|list")
	p.Do("COMMAND", "GETKEYS", "get")
	p.Do("COMMAND", "GETKEYS", "nosuch", "a")
	p.Do("COMMAND", "GETKEYS", "get", "a")
	p.Do("COMMAND", "GETKEYS", "GET", "a")
	p.Do("COMMAND", "GETKEYS", "ping", "x")
	p.Do("COMMAND", "GETKEYS", "get", "a", "b")
	p.Do("COMMAND", "GETKEYS", "object", "encoding", "k")
	p.Do("COMMAND", "GETKEYS", "memory", "usage", "k")
	p.Do("COMMAND", "GETKEYS", "client", "list")
	p.Do("COMMAND", "GETKEYSANDFLAGS", "get", "a")
	p.Do("COMMAND", "GETKEYSANDFLAGS", "nosuch", "a")
	p.Do("COMMAND", "LIST", "FILTERBY", "foo", "x")
	p.Do("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch")
	p.Do("COMMAND", "LIST", "FILTERBY", "MODULE", "x")
	p.Do("COMMAND", "LIST", "foo")
	p.Do("COMMAND", "LIST", "FILTERBY", "PATTERN")
	p.Do("COMMAND", "COUNT", "x")
	p.Do("COMMAND", "DOCS", "nosuch")
	p.Do("COMMAND", "HELP")
	p.Do("COMMAND", "FOO")
	p.DoShape("COMMAND", "COUNT")
	// Every lockkv command in a filtered list is in Redis's list too.
	for _, f := range [][]string{{"PATTERN", "client*"}, {"PATTERN", "CONFIG|*"}, {"ACLCAT", "connection"}, {"ACLCAT", "dangerous"}} {
		args := append([]string{"COMMAND", "LIST", "FILTERBY"}, f...)
		lv, rv := p.both(args)
		in := map[string]bool{}
		for _, e := range rv.Elems {
			in[e.Str] = true
		}
		ok := lv.Kind == '*'
		for _, e := range lv.Elems {
			if !in[e.Str] && !newerThan70(e.Str) {
				t.Errorf("%v: lockkv lists %s, Redis does not", f, e.Str)
				ok = false
			}
		}
		p.check(args, lv, rv, ok)
	}
}

// commandInfoCanonical is a COMMAND INFO entry with its subcommands
// sorted by name, lockkv's Redis 7.2 ones left out (see newerThan70).
func commandInfoCanonical(v Value) Value {
	if len(v.Elems) != 10 {
		return v
	}
	out := v
	out.Elems = append([]Value(nil), v.Elems...)
	subs := out.Elems[9]
	var kept []Value
	for _, sub := range subs.Elems {
		if len(sub.Elems) > 0 && !newerThan70(sub.Elems[0].Str) {
			kept = append(kept, commandInfoCanonical(sub))
		}
	}
	subs.Elems = kept
	out.Elems[9] = subs.Sorted()
	return out
}

// commandListCanonical is a reply of every command's COMMAND INFO, v's,
// as a set: the entries of the commands also in other, canonical, sorted.
func commandListCanonical(v, other Value) Value {
	in := map[string]bool{}
	for _, e := range other.Elems {
		if len(e.Elems) > 0 {
			in[e.Elems[0].Str] = true
		}
	}
	out := v
	out.Elems = nil
	for _, e := range v.Elems {
		if len(e.Elems) > 0 && in[e.Elems[0].Str] {
			out.Elems = append(out.Elems, commandInfoCanonical(e))
		}
	}
	return out.Sorted()
}

func TestServerOBJECT(t *testing.T) {
	p := Connect(t)
	p.Do("SET", "objkey", "v")
	p.Do("SET", "objint", "123")
	p.Do("SET", "objbig", "12345")
	p.Do("SET", "objlong", strings.Repeat("x", 50))
	// 123 is one of the integers Redis shares between keys: its LRU clock
	// is the one object's, touched by a read of any key holding it (else
	// it dates from the server's start, which differs between the two).
	p.Do("SET", "objint2", "123")
	p.Do("GET", "objint2")
	for _, k := range []string{"objkey", "objint", "objbig", "objlong", "nosuchkey"} {
		p.Do("OBJECT", "ENCODING", k)
		p.Do("OBJECT", "REFCOUNT", k)
		p.Do("OBJECT", "FREQ", k)
		p.DoApprox(1, "OBJECT", "IDLETIME", k)
	}
	p.Do("OBJECT")
	p.Do("OBJECT", "HELP")
	p.Do("OBJECT", "FOO", "k")
	p.Do("OBJECT", "ENCODING")
	p.Do("OBJECT", "ENCODING", "a", "b")
	p.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	p.Do("OBJECT", "FREQ", "nosuchkey")
	p.Do("OBJECT", "IDLETIME", "objkey")
	p.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
}

func TestServerMisc(t *testing.T) {
	p := Connect(t)
	lv, rv := p.DoShape("TIME")
	if len(lv.Elems) == 2 && len(rv.Elems) == 2 && lv.Elems[0].Str != rv.Elems[0].Str {
		d := len(lv.Elems[0].Str) - len(rv.Elems[0].Str)
		if d != 0 {
			t.Errorf("TIME seconds %q vs %q", lv.Elems[0].Str, rv.Elems[0].Str)
		}
	}
	p.Do("TIME", "x")
	p.DoShape("LASTSAVE")
	p.Do("LASTSAVE", "x")
	p.Do("WAIT", "0", "0")
	p.Do("WAIT", "x", "0")
	p.Do("WAIT", "0", "x")
	p.Do("WAIT", "0", "-1")
	p.Do("WAIT", "1", "50")
	p.Do("WAIT", "5", "10")
	p.Do("WAIT")
	// WAITAOF came in Redis 7.2: lockkv implements it, 7.0.15 does not
	// (engine/redis72_test.go tests it).
	p.Do("SET", "memkey", "v")
	p.DoShape("MEMORY", "USAGE", "memkey")
	p.DoShape("MEMORY", "USAGE", "memkey", "SAMPLES", "5")
	p.Do("MEMORY", "USAGE", "memkey", "SAMPLES", "x")
	p.Do("MEMORY", "USAGE", "memkey", "foo")
	p.Do("MEMORY", "USAGE", "nosuchkey")
	p.Do("MEMORY", "FOO")
	p.Do("MEMORY", "HELP")
	p.Do("MEMORY")
	p.Do("MEMORY", "USAGE")
	for _, c := range []string{"INFO", "SLOTS", "NODES", "MYID", "SHARDS", "HELP"} {
		p.Do("CLUSTER", c)
	}
	p.Do("CLUSTER", "KEYSLOT", "x")
	p.Do("CLUSTER")
	p.Do("CLUSTER", "FOO")
	p.Do("CLUSTER", "INFO", "x")
	p.Do("READONLY")
	p.Do("READWRITE")
	p.Do("ASKING")
	p.Do("SHUTDOWN", "foo")
	p.Do("SHUTDOWN", "ABORT")
	p.Do("SHUTDOWN", "ABORT", "NOW")
	p.Do("SHUTDOWN", "NOSAVE", "ABORT")
	p.Do("DEBUG", "SLEEP", "0")
	p.Do("DEBUG", "OBJECT", "nosuchkey")
}

func TestServerMONITOR(t *testing.T) {
	mon := Connect(t)
	mon.Do("MONITOR")
	p := Connect(t)
	p.Do("SET", "monkey", "a \"b\"\x01\n")
	p.Do("GET", "monkey")
	p.Do("AUTH", "a", "b")
	p.Do("SELECT", "3")
	p.Do("GET", "monkey")
	p.Do("NOSUCHCMD")
	p.Do("GET")
	p.Do("CONFIG", "GET", "hz")
	p.Do("SELECT", "0")
	want := []string{
		`"SET" "monkey" "a \"b\"\x01\n"`,
		`"GET" "monkey"`,
		`"AUTH" "(redacted)" "(redacted)"`,
		`"SELECT" "3"`,
		`"GET" "monkey"`,
		`"SELECT" "0"`,
	}
	for _, side := range []*Conn{mon.L, mon.R} {
		for i, w := range want {
			v, err := side.Read(2 * time.Second)
			if err != nil {
				t.Fatalf("%s: monitor line %d: %v", side.Addr, i, err)
			}
			comparisons.Add(1)
			// +1690000000.123456 [0 127.0.0.1:1234] "cmd" ...
			ts, rest, _ := strings.Cut(v.Str, " ")
			db, rest, _ := strings.Cut(rest, " ")
			_, args, _ := strings.Cut(rest, "] ")
			wantDB := "[0"
			if i == 3 || i == 4 {
				wantDB = "[3" // SELECT shows the database it selected
			}
			if v.Kind != '+' || len(ts) != 17 || ts[10] != '.' || db != wantDB || args != w {
				divergences.Add(1)
				t.Errorf("%s: monitor line %d = %q, want %s %s", side.Addr, i, v.Str, wantDB, w)
			}
		}
	}
	mon.NoReply(100 * time.Millisecond)
}

func TestServerMONITORTransactionsAndScripts(t *testing.T) {
	mon := Connect(t)
	mon.Do("MONITOR")
	p := Connect(t)
	p.Do("MULTI")
	p.Do("SET", "monkey2", "x y")
	p.Do("EXEC")
	p.Do("EVAL", "return redis.call('get', KEYS[1])", "1", "monkey2")
	p.DoShape("HELLO", "2", "AUTH", "default", "pw")
	p.Do("WAIT", "0", "0")
	want := []string{
		`[0 ] "MULTI"`,
		`[0 ] "SET" "monkey2" "x y"`,
		`[0 ] "EXEC"`,
		`[0 ] "EVAL" "return redis.call('get', KEYS[1])" "1" "monkey2"`,
		`[0 lua] "get" "monkey2"`,
		`[0 ] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"`,
		`[0 ] "WAIT" "0" "0"`,
	}
	for _, side := range []*Conn{mon.L, mon.R} {
		for i, w := range want {
			v, err := side.Read(2 * time.Second)
			if err != nil {
				t.Fatalf("%s: monitor line %d: %v", side.Addr, i, err)
			}
			comparisons.Add(1)
			_, rest, _ := strings.Cut(v.Str, " ")
			// Drop the client address: "[0 127.0.0.1:1234]" -> "[0 ]".
			if j := strings.Index(rest, " "); j > 0 && !strings.HasPrefix(rest[j+1:], "lua]") {
				if k := strings.Index(rest, "]"); k > j {
					rest = rest[:j+1] + rest[k:]
				}
			}
			if rest != w {
				divergences.Add(1)
				t.Errorf("%s: monitor line %d = %q, want %s", side.Addr, i, rest, w)
			}
		}
	}
	mon.NoReply(100 * time.Millisecond)
}

func TestServerINFOErrorstats(t *testing.T) {
	p := Connect(t)
	p.Do("CONFIG", "RESETSTAT")
	p.Do("NOSUCHCMD")
	p.Do("GET")
	p.Do("SET", "errstat", "x")
	p.Do("LPUSH", "errstat", "x")
	p.Do("AUTH", "a", "b")
	p.infoMatches([]string{"INFO", "errorstats"}, "errorstat_ERR", "errorstat_WRONGTYPE", "errorstat_WRONGPASS")
	p.infoMatches([]string{"INFO", "stats"}, "total_error_replies", "total_commands_processed")
	p.Do("CONFIG", "RESETSTAT")
	p.infoMatches([]string{"INFO", "errorstats"})
}

// commandStats parses INFO commandstats into name -> calls, rejected and
// failed counts (usec is not compared).
func commandStats(s string) map[string]string {
	out := map[string]string{}
	_, f := infoFields(s)
	for k, v := range f {
		if name, ok := strings.CutPrefix(k, "cmdstat_"); ok {
			var kept []string
			for _, part := range strings.Split(v, ",") {
				if strings.HasPrefix(part, "calls=") || strings.HasPrefix(part, "rejected_calls=") || strings.HasPrefix(part, "failed_calls=") {
					kept = append(kept, part)
				}
			}
			out[name] = strings.Join(kept, ",")
		}
	}
	return out
}

func TestServerINFOCommandstats(t *testing.T) {
	p := Connect(t)
	p.Do("CONFIG", "RESETSTAT")
	p.Do("SET", "cstat", "1")
	p.Do("GET", "cstat")
	p.Do("GET")
	p.Do("LPUSH", "cstat", "x")
	p.Do("CLIENT", "SETNAME", "a b")
	p.Do("CLIENT", "GETNAME")
	p.Do("NOSUCH")
	p.Do("MULTI")
	p.Do("INCR", "cstat")
	p.Do("EXEC")
	lv, rv := p.DoShape("INFO", "commandstats")
	l, r := commandStats(lv.Str), commandStats(rv.Str)
	same := true
	for _, name := range []string{"set", "get", "lpush", "client|setname", "client|getname", "multi", "exec", "config|resetstat"} {
		if l[name] != r[name] {
			t.Errorf("cmdstat_%s: lockkv %q, redis %q", name, l[name], r[name])
			same = false
		}
	}
	p.check("INFO commandstats", lv, rv, same)
}
