package conformance

import (
	"sort"
	"strings"
	"testing"
)

// configPerServer are the settings whose values legitimately differ
// between the two servers: where each listens and keeps its files.
//
// io-threads: Redis's default is 1; lockkv's depends on the cores it may
// use (config.DefaultIOThreads: 1 below 4 cores, as on the machines CI
// uses).
var configPerServer = map[string]bool{"port": true, "dir": true, "logfile": true, "bind": true, "io-threads": true}

// configAll returns CONFIG GET * as a map.
func configAll(t *testing.T, c *Conn) map[string]string {
	t.Helper()
	v := c.MustDo(t, "CONFIG", "GET", "*")
	m := map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		m[v.Elems[i].Str] = v.Elems[i+1].Str
	}
	return m
}

// TestConfigGetAll: CONFIG GET * names the same settings as Redis 7.0
// (about 190, aliases included) with the same values, but for
// configPerServer's; in RESP2 and RESP3, compared as sets (Redis answers
// in hash-table order).
func TestConfigGetAll(t *testing.T) {
	p := Connect(t)
	for _, proto := range []string{"2", "3"} {
		p.Do("HELLO", proto)
		lv, rv := p.both([]string{"CONFIG", "GET", "*"})
		mask := func(v Value) Value {
			out := v
			out.Elems = append([]Value(nil), v.Elems...)
			for i := 0; i+1 < len(out.Elems); i += 2 {
				if configPerServer[out.Elems[i].Str] {
					out.Elems[i+1] = Value{Kind: '$', Str: "(per server)"}
				}
			}
			return out.Sorted()
		}
		lm, rm := mask(lv), mask(rv)
		comparisons.Add(1)
		if !Equal(lm, rm) {
			divergences.Add(1)
			names := func(v Value) map[string]string {
				m := map[string]string{}
				for i := 0; i+1 < len(v.Elems); i += 2 {
					m[v.Elems[i].Str] = v.Elems[i+1].Str
				}
				return m
			}
			l, r := names(lm), names(rm)
			var diff []string
			for n, rv := range r {
				if lv, ok := l[n]; !ok {
					diff = append(diff, n+": missing in lockkv")
				} else if lv != rv {
					diff = append(diff, n+": lockkv "+lv+", redis "+rv)
				}
			}
			for n := range l {
				if _, ok := r[n]; !ok {
					diff = append(diff, n+": only in lockkv")
				}
			}
			sort.Strings(diff)
			t.Errorf("RESP%s CONFIG GET * differs (kinds %c %c):\n%s", proto, lm.Kind, rm.Kind, strings.Join(diff, "\n"))
		}
		if len(rm.Elems)/2 < 180 {
			t.Errorf("Redis has only %d settings", len(rm.Elems)/2)
		}
	}
	p.Do("HELLO", "2")
	// Patterns, aliases, hidden settings (exact names only), names as typed.
	for _, args := range [][]string{
		{"CONFIG", "GET", "*max*entries*"}, {"CONFIG", "GET", "slave-*"}, {"CONFIG", "GET", "*ziplist*", "hash-*"},
		{"CONFIG", "GET", "*delay*"}, {"CONFIG", "GET", "rdb-key-save-delay"}, {"CONFIG", "GET", "watchdog-period"},
		{"CONFIG", "GET", "use-exit-on-panic", "key-load-delay", "loading-process-events-interval-bytes"},
		{"CONFIG", "GET", "MAXMEMORY", "maxmemory"}, {"CONFIG", "GET", "Lua-Time-Limit"}, {"CONFIG", "GET", "tls-*"},
		{"CONFIG", "GET", "nosuch"}, {"CONFIG", "GET", "*nosuch*"}, {"CONFIG", "GET", "[a-c]*"},
	} {
		p.DoPairsSorted(args...)
	}
}

// TestConfigSetTypes: CONFIG SET validates each kind of setting as Redis
// does (booleans, integers with ranges, memory values, percentages,
// enums, flag sets, and the special ones), with Redis's error texts, and
// CONFIG GET shows what was set. Every setting changed is restored.
func TestConfigSetTypes(t *testing.T) {
	p := Connect(t)
	orig := configAll(t, p.R)
	touched := map[string]bool{}
	t.Cleanup(func() {
		c := Connect(t)
		var names []string
		for n := range touched {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c.Do("CONFIG", "SET", n, orig[n])
		}
	})
	set := func(name string, values ...string) {
		t.Helper()
		touched[strings.ToLower(name)] = true
		for _, v := range values {
			p.Do("CONFIG", "SET", name, v)
			p.Do("CONFIG", "GET", name)
		}
	}
	// Booleans.
	set("activerehashing", "no", "YES", "Yes", "1", "true", "", "yes ")
	set("slave-read-only", "no", "yes", "maybe")
	set("lazyfree-lazy-user-flush", "yes", "no")
	set("replica-ignore-disk-write-errors", "yes", "no")
	set("activedefrag", "yes", "no", "x")
	set("tls-session-caching", "no", "yes")
	set("use-exit-on-panic", "yes", "no")
	// Integers: ranges, string2ll's syntax.
	set("maxmemory-samples", "0", "1", "7", "2147483647", "2147483648", "-1", "+5", " 5", "5 ", "05", "1e3", "0x10", "", "5")
	set("active-defrag-cycle-min", "0", "99", "100", "1")
	set("slowlog-log-slower-than", "-1", "-2", "9223372036854775807", "9223372036854775808", "10000")
	set("list-max-ziplist-size", "-2147483649", "-2147483648", "-2")
	set("repl-backlog-ttl", "9223372036854775807", "-1", "3600")
	set("replica-announce-port", "65535", "65536", "0")
	set("tracking-table-max-keys", "-1", "18446744073709551615", "0", "1000000")
	set("maxclients", "0", "-1", "4294967296", "10000")
	set("rdb-key-save-delay", "-5", "0")
	set("loading-process-events-interval-bytes", "1023", "1024", "2097152")
	set("hz", "0", "501", "100000", "10")
	// Memory values.
	set("maxmemory", "1.5gb", "-1", "+1", "", "kb", "18446744073709551615", "18446744073709551616", "20000000000gb", "5K", "5KB", "5Gb", "0")
	set("hash-max-listpack-value", "1kb", "-1", "18446744073709551615", "9223372036854775807", "64")
	set("proto-max-bulk-len", "1mb", "1048575", "18446744073709551615", "512mb")
	set("repl-backlog-size", "0", "1", "2mb", "1mb")
	set("client-query-buffer-limit", "1gb", "1mb", "1023kb", "1073741824")
	set("active-defrag-ignore-bytes", "0", "1", "100mb")
	set("auto-aof-rewrite-min-size", "1g", "64mb")
	// Memory or percentage.
	// maxmemory-clients' values: TestConfigSetUnsupported.
	// Enums.
	set("maxmemory-policy", "ALLKEYS-LFU", "volatile-ttl", "lru", "", " noeviction", "noeviction")
	set("loglevel", "debug", "notice warning", "NOTICE")
	set("repl-diskless-load", "swapdb", "on-empty-db", "x", "disabled")
	set("propagation-error-behavior", "PANIC", "panic-on-replicas", "ignore")
	set("sanitize-dump-payload", "clients", "no")
	set("cluster-preferred-endpoint-type", "hostname", "unknown-endpoint", "ip")
	set("acl-pubsub-default", "allchannels", "resetchannels")
	// Flag sets.
	for _, v := range []string{"now save", "FORCE  now", "save nosave", "default now", "force now nosave", "", "x", "default"} {
		configSetUnsupported(t, p, "shutdown-on-sigint", v) // only some values: see TestConfigSetUnsupported
	}
	set("shutdown-on-sigterm", "nosave", "NOW", "default")
	// Strings and their checks.
	set("masteruser", "alice", "")
	set("replica-announce-ip", "10.0.0.1", "")
	set("ignore-warnings", "ARM64-COW-BUG", "")
	set("cluster-announce-hostname", "a_b", "node-1.example", strings.Repeat("a", 255), strings.Repeat("a", 256), "")
	for _, v := range []string{"{title}", "{nosuch}", "{server-mode}", "x {", "{{ {port}", "{unixsocket}", "}", "{title} {listen-addr} {server-mode}"} {
		configSetUnsupported(t, p, "proc-title-template", v) // only some values: see TestConfigSetUnsupported
	}
	for _, v := range []string{"DEFAULT:!MEDIUM", ""} {
		configSetUnsupported(t, p, "tls-ciphers", v) // only some values: see TestConfigSetUnsupported
	}
	// Special ones.
	for _, v := range []string{"100  10", "100 10 ", " 100 10", "+5 -0", "99999999999999999999 5000000000", "3600 1 300 100 60 10000", "0 1", "1 -1", "1", ""} {
		configSetUnsupported(t, p, "save", v) // only some values: see TestConfigSetUnsupported
	}
	set("client-output-buffer-limit", "", "PUBSUB 1kb 2K 3", "replica 1gb 2gb 3 master 1 2 3", "pubsub 1 2 -3", "pubsub 1 2 99999999999",
		"pubsub 1 2 4294967295", "pubsub 1 2", "pubsub x 2 3", "nosuch 1 2 3", "slave 268435456 67108864 60 pubsub 33554432 8388608 60")
	set("oom-score-adj-values", "0 200 5000", "0 200", "1 2 3", "-2000 0 2000", "1 2 x", "", "0 200 800")
	set("latency-tracking-info-percentiles", "50.0 99 99.90 0.001", "", "1e1 x", "101", "-1", "nan", "0.0000001 100",
		"0x10", "0x1.8 0X1P3", "1e-400", "4.9e-324", "1e", "50 99 99.9")
	set("notify-keyspace-events", "KEA", "a b", "")
	set("bind", strings.Repeat("127.0.0.1 ", 16)+"127.0.0.1")
	// Immutable and protected ones, by name and alias.
	for _, n := range []string{"databases", "daemonize", "rdbchecksum", "io-threads", "unixsocketperm", "socket-mark-id",
		"supervised", "slaveof", "replicaof", "appendfilename", "enable-debug-command", "dir", "dbfilename", "cluster-enabled"} {
		p.Do("CONFIG", "SET", n, "1")
	}
}

// TestConfigSetMulti: Redis 7.0 sets several parameters at once, all or
// none: name errors (unknown, immutable, protected, repeated) are checked
// in the order given before anything changes, and a bad value restores
// the values set before it.
func TestConfigSetMulti(t *testing.T) {
	p := Connect(t)
	orig := configAll(t, p.R)
	names := []string{"timeout", "maxmemory", "maxmemory-policy", "loglevel", "replica-read-only", "hz",
		"client-output-buffer-limit", "save", "maxmemory-samples", "notify-keyspace-events", "lfu-log-factor"}
	t.Cleanup(func() {
		c := Connect(t)
		for _, n := range names {
			c.Do("CONFIG", "SET", n, orig[n])
		}
	})
	get := func() { p.DoPairsSorted(append([]string{"CONFIG", "GET"}, names...)...) }
	for _, args := range [][]string{
		{"CONFIG", "SET", "maxmemory-samples", "7", "loglevel", "warning", "lfu-log-factor", "20"},
		{"CONFIG", "SET", "timeout", "5", "maxmemory-policy", "allkeys-lru", "loglevel", "bad"},
		{"CONFIG", "SET", "maxmemory", "1gb", "client-output-buffer-limit", "pubsub 1mb 1mb 1", "save", "x"},
		{"CONFIG", "SET", "save", "100 10", "notify-keyspace-events", "KEA", "hz", "x"},
		{"CONFIG", "SET", "timeout", "1", "TIMEOUT", "2"},
		{"CONFIG", "SET", "databases", "3", "nosuch", "2"},
		{"CONFIG", "SET", "timeout", "1", "nosuch", "2", "databases", "3"},
		{"CONFIG", "SET", "timeout", "1", "dir", "/tmp", "nosuch", "2"},
		{"CONFIG", "SET", "databases", "3", "timeout", "x"},
		{"CONFIG", "SET", "slave-read-only", "no", "replica-read-only", "yes"},
		{"CONFIG", "SET", "replica-read-only", "no", "slave-read-only", "no"},
		{"CONFIG", "SET", "MAXMEMORY", "x"},
		{"CONFIG", "SET", "SLAVE-READ-ONLY", "x"},
		{"CONFIG", "SET", "DATABASES", "1"},
		{"CONFIG", "SET", "Nosuch", "1"},
		{"CONFIG", "SET", "timeout", "1", "maxmemory"},
		{"CONFIG", "SET", "hz", "20", "maxmemory-samples", "3", "maxmemory-policy", "volatile-lfu", "timeout", "0"},
	} {
		p.Do(args...)
		get()
	}
}

// configSetUnsupported sends CONFIG SET name value to both servers for a
// setting lockkv takes only some values of (config/support.go).
// A value Redis refuses must be refused alike, one both take taken alike;
// one Redis takes and lockkv does not implement must get lockkv's refusal
// (a lockkv-only assertion) and leave lockkv's value as it was. Redis is
// then put back, so both go on from the same state, which CONFIG GET
// compares.
func configSetUnsupported(t *testing.T, p *Pair, name, value string) {
	t.Helper()
	args := []string{"CONFIG", "SET", name, value}
	lBefore := p.L.MustDo(t, "CONFIG", "GET", name)
	rBefore := p.R.MustDo(t, "CONFIG", "GET", name)
	lv, rv := p.both(args)
	if rv.Kind == '-' || lv.Kind != '-' {
		p.check(args, lv, rv, Equal(lv, rv))
	} else {
		comparisons.Add(1)
		prefix := "ERR CONFIG SET failed (possibly related to argument '" + name + "') - lockkv does not support "
		if !strings.HasPrefix(lv.Str, prefix) {
			divergences.Add(1)
			t.Errorf("%q: lockkv answered %v; want its refusal %q...", args, lv, prefix)
		}
		if after := p.L.MustDo(t, "CONFIG", "GET", name); !Equal(after, lBefore) {
			t.Errorf("%q: a refused value changed lockkv's setting from %v to %v", args, lBefore, after)
		}
		if len(rBefore.Elems) == 2 {
			p.R.MustDo(t, "CONFIG", "SET", name, rBefore.Elems[1].Str)
		}
	}
	if !configPerServer[name] {
		p.Do("CONFIG", "GET", name)
	}
}

// TestConfigSetUnsupported: settings whose other values lockkv does not
// implement (persistence, listeners, TLS at run time, replication
// guarantees) refuse them, after validating them as Redis does; their
// current values, and the values that describe lockkv, are taken.
func TestConfigSetUnsupported(t *testing.T) {
	p := Connect(t)
	for _, c := range []struct {
		name   string
		values []string
	}{
		{"save", []string{"3600 1 300 100", "100  10", "x", "1", ""}},
		{"appendonly", []string{"yes", "YES", "maybe", "no"}},
		{"rdbcompression", []string{"no", "yes"}},
		{"min-replicas-to-write", []string{"1", "-1", "0"}},
		{"port", []string{"x", "70000"}},
		{"bind", []string{"127.0.0.1", "127.0.0.2", "nosuch"}},
		{"tls-port", []string{"x", "0"}}, // another port: Redis built with TLS fails it otherwise
		{"tls-auth-clients", []string{"optional", "no", "x", "yes"}},
		{"tls-ciphers", []string{"DEFAULT:!MEDIUM", ""}},
		{"tls-cert-file", []string{"/nonexistent.crt", ""}},
		{"oom-score-adj", []string{"relative", "x", "no"}},
		{"proc-title-template", []string{"{title}", "{nosuch}", "{title} {listen-addr} {server-mode}"}},
		{"bind-source-addr", []string{"127.0.0.1", ""}},
		{"shutdown-on-sigint", []string{"save", "now save", "nosave now", "save nosave", "default"}},
		{"shutdown-on-sigterm", []string{"save force", "force", "default"}},
		// Client eviction: percentages and memory values validated as
		// Redis does, every limit but 0 refused.
		{"maxmemory-clients", []string{"10%", "100%", "101%", "0%", "-1%", "%", "1%%", "18446744073709551615", "1gb", "x", "0"}},
	} {
		for _, v := range c.values {
			configSetUnsupported(t, p, c.name, v)
		}
	}
	// Refusal comes after every value was validated, as Redis's apply
	// stage: a bad value later in the command is the error.
	p.Do("CONFIG", "SET", "save", "100 10", "hz", "x")
	p.DoPairsSorted("CONFIG", "GET", "save", "hz")
	// And nothing of the command is kept.
	l := p.L.MustDo(t, "CONFIG", "SET", "hz", "20", "appendonly", "yes")
	if !strings.HasPrefix(l.Str, "ERR CONFIG SET failed (possibly related to argument 'appendonly') - lockkv does not support ") {
		t.Errorf("CONFIG SET hz 20 appendonly yes: %v", l)
	}
	if v := p.L.MustDo(t, "CONFIG", "GET", "hz"); len(v.Elems) != 2 || v.Elems[1].Str != "10" {
		t.Errorf("hz after a refused CONFIG SET: %v", v)
	}
	// loglevel is honoured (the embedded server has a level).
	for _, v := range []string{"debug", "verbose", "warning", "notice"} {
		p.Do("CONFIG", "SET", "loglevel", v)
		p.Do("CONFIG", "GET", "loglevel")
	}
}
