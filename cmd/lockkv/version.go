package main

import (
	"fmt"
	"strconv"

	"github.com/lockkv/lockkv/internal/buildinfo"
)

// versionLine is lockkv --version, in redis-server -v's form: lockkv's
// version, the git revision it was built from (":1" when the tree had
// uncommitted changes), the Go version and the Redis version it speaks.
//
// Releases set the version with
//
//	-ldflags "-X github.com/lockkv/lockkv/internal/buildinfo.version=v1.2.3"
//
// and go build embeds the revision itself (vcs.revision, vcs.modified).
func versionLine() string {
	bi := buildinfo.Get()
	return fmt.Sprintf("lockkv server v=%s sha=%s:%s go=%s redis=%s bits=%d",
		bi.Version, bi.ShortRevision(), bi.Dirty(), bi.GoVersion, buildinfo.RedisVersion, strconv.IntSize)
}
