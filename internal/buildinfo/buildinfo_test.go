package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestRead(t *testing.T) {
	i := read("v1.2.3", "0123456789abcdef0123456789abcdef01234567", "true")
	if i.Version != "v1.2.3" || i.GoVersion != runtime.Version() || i.ShortRevision() != "0123456789ab" || i.Dirty() != "1" {
		t.Errorf("%+v %s %s", i, i.ShortRevision(), i.Dirty())
	}
	// A test binary has no version of its own: "dev", unknown revision
	// unless go recorded one.
	i = read("", "", "")
	if i.Version != "dev" {
		t.Errorf("version %q, want dev", i.Version)
	}
	if i.Revision == "" && (i.ShortRevision() != "00000000" || i.Dirty() != "0") {
		t.Errorf("unknown revision: %q %q", i.ShortRevision(), i.Dirty())
	}
}

func TestModuleVersion(t *testing.T) {
	for v, want := range map[string]string{
		"v1.4.0":                             "v1.4.0",
		"v1.5.0-rc.1":                        "v1.5.0-rc.1",
		"(devel)":                            "",
		"v0.0.0-20260101000000-abcdef123456": "",
		"v1.4.1-0.20260101000000-abcdef1234": "",
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: "github.com/lockkv/lockkv", Version: v}}}
		if got := moduleVersion(bi); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
}

// TestRedisVersionNum: the number scripts see is the version string's.
func TestRedisVersionNum(t *testing.T) {
	var major, minor, patch int
	if n, err := fmt.Sscanf(RedisVersion, "%d.%d.%d", &major, &minor, &patch); n != 3 || err != nil {
		t.Fatalf("RedisVersion %q: %v", RedisVersion, err)
	}
	if want := major<<16 | minor<<8 | patch; RedisVersionNum != want {
		t.Fatalf("RedisVersionNum = %#x, want %#x", RedisVersionNum, want)
	}
}
