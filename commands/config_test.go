package commands

import "testing"

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
