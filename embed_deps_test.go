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
// those come with packages replication (Raft and its stores) and metrics
// (Prometheus) only, and neither brings the other's. (What an embedding
// user's module graph holds is measured by bench/embedgraph.sh.)
func TestEmbedDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	raft := []string{"github.com/hashicorp/", "go.etcd.io/", "github.com/coreos/", "github.com/boltdb/", "github.com/lockkv/lockkv/replication"}
	prom := []string{"github.com/prometheus/", "github.com/lockkv/lockkv/metrics"}
	for pkg, forbidden := range map[string][]string{
		"github.com/lockkv/lockkv":             append(raft, prom...),
		"github.com/lockkv/lockkv/metrics":     raft,
		"github.com/lockkv/lockkv/replication": prom,
	} {
		out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed %d packages: %q", pkg, len(deps), deps)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if strings.HasPrefix(d, f) {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
}
