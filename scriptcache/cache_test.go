package scriptcache

import (
	"fmt"
	"strconv"
	"testing"
)

func TestSHA1Hex(t *testing.T) {
	if got := SHA1Hex([]byte("return 1")); got != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("sha %s", got)
	}
}

func TestEvalScriptsAreBounded(t *testing.T) {
	c := New(3)
	c.Add("loaded", &Entry{}, true)
	for i := 0; i < 5; i++ {
		c.Add("s"+strconv.Itoa(i), &Entry{}, false)
	}
	// Only the three most recent EVAL scripts stay; SCRIPT LOAD's stays.
	for _, sha := range []string{"loaded", "s2", "s3", "s4"} {
		if c.Get(sha) == nil {
			t.Errorf("%s evicted", sha)
		}
	}
	for _, sha := range []string{"s0", "s1"} {
		if c.Get(sha) != nil {
			t.Errorf("%s kept", sha)
		}
	}
	// A use moves a script to the back; loading makes it permanent.
	c.Touch(c.Get("s2"))
	c.Add("s5", &Entry{}, false)
	if c.Get("s2") == nil || c.Get("s3") != nil {
		t.Error("touch did not refresh s2")
	}
	c.Add("s4", nil, true)
	c.Add("s6", &Entry{}, false)
	c.Add("s7", &Entry{}, false)
	c.Add("s8", &Entry{}, false)
	if c.Get("s4") == nil {
		t.Error("loaded s4 evicted")
	}
	if c.GetBytes([]byte("S4")) == nil {
		t.Error("lookup is not case-insensitive")
	}
	c.Flush()
	if c.Len() != 0 {
		t.Error("flush left scripts")
	}
}

func TestEntriesRebuildTheCache(t *testing.T) {
	c := New(10)
	c.Add("b", &Entry{}, true)
	c.Add("a", &Entry{}, true)
	for _, sha := range []string{"e1", "e2", "e3"} {
		c.Add(sha, &Entry{}, false)
	}
	c.Touch(c.Get("e1"))
	loaded, eval := c.Entries()
	var got []string
	for _, e := range loaded {
		got = append(got, e.Script.SHA)
	}
	got = append(got, "|")
	for _, e := range eval {
		got = append(got, e.Script.SHA)
	}
	if want := "[a b | e2 e3 e1]"; fmt.Sprint(got) != want {
		t.Fatalf("entries %v, want %s", got, want)
	}
}
