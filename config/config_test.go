package config

import (
	"log/slog"
	"strconv"
	"testing"
)

func TestMemtoull(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"100", 100, true}, {"1k", 1000, true}, {"1kb", 1024, true},
		{"1KB", 1024, true}, {"2m", 2000000, true}, {"2mb", 2 << 20, true}, {"1gb", 1 << 30, true},
		{"1g", 1000000000, true}, {"5b", 5, true}, {"", 0, true}, {"kb", 0, true},
		{"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1.5gb", 0, false}, {"10 mb", 0, false}, {"x", 0, false},
		{"9223372036854775807", 9223372036854775807, true}, {"18446744073709551615", 18446744073709551615, true},
		{"18446744073709551616", 18446744073709551615, true}, {"20000000000gb", 3028092406290448384, true},
	} {
		got, ok := memtoull(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("memtoull(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestConfigSetGet(t *testing.T) {
	c := NewConfig()
	for _, s := range []struct{ name, value, get, err string }{
		{"maxmemory", "1kb", "1024", ""},
		{"MAXMEMORY-POLICY", "ALLKEYS-LFU", "allkeys-lfu", ""},
		{"hash-max-ziplist-entries", "7", "7", ""},
		{"lua-time-limit", "100", "100", ""},
		{"hz", "0", "1", ""},
		{"hz", "100000", "500", ""},
		{"notify-keyspace-events", "KEA", "AKE", ""},
		{"timeout", "+1", "", "argument couldn't be parsed into an integer"},
		{"databases", "4", "", "can't set immutable config"},
		{"dir", "/tmp", "", "can't set protected config"},
		{"appendonly", "maybe", "", "argument must be 'yes' or 'no'"},
		{"nosuch", "x", "", "unknown option"},
	} {
		ok, msg := c.Set(s.name, s.value)
		if s.err != "" {
			if ok || msg != s.err {
				t.Errorf("Set(%s, %s) = %v %q; want error %q", s.name, s.value, ok, msg, s.err)
			}
			continue
		}
		if !ok {
			t.Errorf("Set(%s, %s): %s", s.name, s.value, msg)
			continue
		}
		if got, _ := c.Get(s.name); got != s.get {
			t.Errorf("Get(%s) = %q; want %q", s.name, got, s.get)
		}
	}
	if c.HashMaxListpackEntries != 7 || c.LuaTimeLimit != 100 || c.Hz != 500 {
		t.Errorf("honoured fields not set: %+v", c)
	}
}

// TestConfigDefaultsValid: every setting's default passes its own
// validation and reads back unchanged (CONFIG SET name <CONFIG GET name>
// is a no-op, as on Redis).
func TestConfigDefaultsValid(t *testing.T) {
	c := NewConfig()
	for _, s := range settings {
		if s.flags&(cfgImmutable|cfgProtected) != 0 {
			continue
		}
		before := s.get(c)
		if msg := s.set(c, before); msg != "" {
			t.Errorf("%s: default %q refused: %s", s.name, before, msg)
			continue
		}
		if after := s.get(c); after != before {
			t.Errorf("%s: %q reads back as %q", s.name, before, after)
		}
	}
	if len(settingIndex) < 190 {
		t.Errorf("only %d setting names", len(settingIndex))
	}
}

// honouredImmutable are the immutable settings lockkv acts on.
var honouredImmutable = map[string]bool{"databases": true, "enable-debug-command": true, "enable-protected-configs": true, "io-threads": true}

// TestConfigSupportComplete: every setting is classified once in
// settingSupport, and only names of the table are there.
func TestConfigSupportComplete(t *testing.T) {
	for _, s := range settings {
		sp, ok := settingSupport[s.name]
		if !ok {
			t.Errorf("%s: not classified in settingSupport", s.name)
			continue
		}
		if (sp.class == fixed || sp.class == replication) && sp.what == "" {
			t.Errorf("%s: refused without a reason", s.name)
		}
		if (s.flags&cfgImmutable != 0) != (sp.class == immutable) && !honouredImmutable[s.name] {
			t.Errorf("%s: immutable flag and class disagree", s.name)
		}
	}
	for name := range settingSupport {
		if s := lookupSetting(name); s == nil || s.name != name {
			t.Errorf("settingSupport names %q, not a setting's canonical name", name)
		}
	}
}

// TestConfigRefusals: values lockkv does not implement are refused with
// the reason and leave the setting as it was; the current value and the
// values that describe lockkv are taken.
func TestConfigRefusals(t *testing.T) {
	c := NewConfig()
	for _, s := range []struct{ name, value, err string }{
		{"appendonly", "no", ""},
		{"appendonly", "yes", "lockkv does not support the append-only file (a cluster node with --data-dir logs every write through Raft) (only 'no' is accepted)"},
		{"save", "", ""},
		{"save", "3600 1", "lockkv does not support automatic RDB snapshots (SAVE and BGSAVE work) (only '' is accepted)"},
		{"save", "x", "Invalid save parameters"}, // Redis's validation first
		{"port", "6379", ""},
		{"port", "6380", "lockkv does not support moving its listener (--addr) (only '6379' is accepted)"},
		{"min-replicas-to-write", "1", "lockkv does not support refusing writes for want of replicas (only '0' is accepted)"},
		{"tls-auth-clients", "optional", "lockkv does not support changing TLS settings at run time (they are set when lockkv starts: --tls-*) (only 'yes' is accepted)"},
		{"shutdown-on-sigterm", "now force", ""},
		{"shutdown-on-sigterm", "save now", "lockkv does not support saving on shutdown (no RDB snapshots)"},
		{"replica-read-only", "no", ""}, // standalone: inert
		{"loglevel", "warning", "lockkv does not support changing the log level of a server embedded without one"},
		{"loglevel", "notice", ""},
		{"lazyfree-lazy-user-del", "yes", ""},
	} {
		before, _ := c.Get(s.name)
		ok, msg := c.Set(s.name, s.value)
		if s.err == "" {
			if !ok {
				t.Errorf("Set(%s, %q): %s", s.name, s.value, msg)
			}
			continue
		}
		if ok || msg != s.err {
			t.Errorf("Set(%s, %q) = %v %q; want %q", s.name, s.value, ok, msg, s.err)
		}
		if after, _ := c.Get(s.name); after != before {
			t.Errorf("%s changed from %q to %q by a refused value", s.name, before, after)
		}
	}

	// On a Raft node the Redis replication settings take their current
	// value only.
	c.clustered = true
	if ok, msg := c.Set("replica-read-only", "yes"); ok || msg != "lockkv does not support changing Redis replication and Redis Cluster settings on a Raft node (only 'no' is accepted)" {
		t.Errorf("replica-read-only on a Raft node: %v %q", ok, msg)
	}

	// With a LevelVar, loglevel moves it.
	var lv slog.LevelVar
	c.LogLevel = &lv
	for _, name := range logLevelNames {
		if ok, msg := c.Set("loglevel", name); !ok {
			t.Fatalf("loglevel %s: %s", name, msg)
		}
		if got := LogLevelName(lv.Level()); got != name {
			t.Errorf("loglevel %s: level %v reads as %s", name, lv.Level(), got)
		}
	}
	if lv.Level() != slog.LevelWarn {
		t.Errorf("loglevel warning: level %v", lv.Level())
	}
}

// TestIOThreads: io-threads defaults by the cores (DefaultIOThreads), a
// config file sets it within Redis's bounds, and CONFIG REWRITE writes
// it only when it is not this machine's default.
func TestIOThreads(t *testing.T) {
	for procs, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 8: 4, 16: 8, 64: 8} {
		if got := DefaultIOThreads(procs); got != want {
			t.Errorf("DefaultIOThreads(%d) = %d, want %d", procs, got, want)
		}
	}
	c := NewConfig()
	n := c.IOThreads + 1 // not this machine's default
	if msg := c.LoadDirective("io-threads", []string{strconv.Itoa(n)}); msg != "" || c.IOThreads != n {
		t.Fatalf("io-threads %d: %q, IOThreads %d", n, msg, c.IOThreads)
	}
	for _, v := range []string{"0", "129", "x"} {
		if msg := c.LoadDirective("io-threads", []string{v}); msg == "" || c.IOThreads != n {
			t.Errorf("io-threads %s: accepted (%d)", v, c.IOThreads)
		}
	}
	forced := func(c *Config) bool {
		for _, l := range c.RewriteLines() {
			if l.Option == "io-threads" {
				return l.Force
			}
		}
		t.Fatal("CONFIG REWRITE has no io-threads line")
		return false
	}
	if !forced(c) || forced(NewConfig()) {
		t.Errorf("CONFIG REWRITE: io-threads forced %v when set, %v at the default", forced(c), forced(NewConfig()))
	}
}
