// Package buildinfo says which lockkv this is: its version, the git
// revision it was built from and whether that tree had uncommitted
// changes (lockkv --version, INFO server), and which Redis it speaks.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// version is set for releases:
//
//	go build -ldflags "-X github.com/lockkv/lockkv/internal/buildinfo.version=v1.2.3" ./cmd/lockkv
//
// Without it Version is the module version Go recorded (a tagged
// dependency of an embedding program), else "dev". revision and modified
// ("true") likewise stand in for what go build records from git
// (vcs.revision, vcs.modified) where it cannot: a build outside the
// repository (a Docker build context without .git), a git worktree (go
// only stamps a .git directory), or -buildvcs=false.
var version, revision, modified string

// RedisVersion is the Redis version lockkv speaks and reports (INFO,
// HELLO, redis.REDIS_VERSION in scripts, lockkv --version): clients that
// check versions treat lockkv as this Redis. RedisVersionNum is the same
// as Lua's redis.REDIS_VERSION_NUM encodes it (0x00MMmmpp).
const (
	RedisVersion    = "7.0.15"
	RedisVersionNum = 7<<16 | 0<<8 | 15
)

// Info is what the build says about itself.
type Info struct {
	Version   string // "v1.2.3", or "dev" for a build that is no release
	Revision  string // git commit (40 hex digits), "" when unknown
	Modified  bool   // built from a tree with uncommitted changes
	GoVersion string
}

var (
	once sync.Once
	info Info
)

// Get returns the build's Info.
func Get() Info {
	once.Do(func() { info = read(version, revision, modified) })
	return info
}

func read(v, rev, mod string) Info {
	i := Info{Version: v, Revision: rev, Modified: mod == "true", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Revision = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
		if i.Version == "" {
			i.Version = moduleVersion(bi)
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	return i
}

// moduleVersion is lockkv's module version as Go recorded it: a tagged
// version when lockkv was built as a dependency (or with go install
// module@version), nothing for "(devel)" or a pseudo-version, which say
// less than the revision.
func moduleVersion(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != "github.com/lockkv/lockkv" {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == "github.com/lockkv/lockkv" {
				m = d
				break
			}
		}
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" || strings.Count(m.Version, "-") >= 2 {
		return ""
	}
	return m.Version
}

// ShortRevision is the revision's first 12 digits, or "00000000" when
// unknown (Redis's redis_git_sha1 for a build without git).
func (i Info) ShortRevision() string {
	switch {
	case i.Revision == "":
		return "00000000"
	case len(i.Revision) > 12:
		return i.Revision[:12]
	}
	return i.Revision
}

// Dirty is "1" for a build from a modified tree, else "0".
func (i Info) Dirty() string {
	if i.Modified {
		return "1"
	}
	return "0"
}
