package lockkv_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEmbedDeps: a program that embeds a single server (the root
// package) builds no Raft, Raft store, bbolt, etcd or Prometheus code;
// those come with packages replication and metrics only, and metrics
// brings no Raft either. (How many modules an embedding user's graph has
// is measured by bench/embedgraph.sh.)
func TestEmbedDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	heavy := []string{"github.com/hashicorp/", "go.etcd.io/", "github.com/coreos/", "github.com/boltdb/", "github.com/prometheus/"}
	for pkg, allowed := range map[string][]string{
		"github.com/lockkv/lockkv":         nil,
		"github.com/lockkv/lockkv/metrics": {"github.com/prometheus/"},
	} {
		out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed %d packages: %q", pkg, len(deps), deps)
		}
	dep:
		for _, d := range deps {
			for _, a := range allowed {
				if strings.HasPrefix(d, a) {
					continue dep
				}
			}
			for _, h := range heavy {
				if strings.HasPrefix(d, h) || d == "github.com/lockkv/lockkv/replication" {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
}
