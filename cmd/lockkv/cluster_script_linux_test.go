package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// freeBase finds a BASE for deploy/cluster.sh whose six ports are free.
func freeBase(t *testing.T) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(30000)
		ok := true
		for _, off := range []int{1, 2, 3, 101, 102, 103} {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+off))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports for the cluster")
	return 0
}

// deploy/cluster.sh starts the README's 3-node cluster, which elects a
// leader; status and stop do what they say.
func TestClusterScript(t *testing.T) {
	bin := lockkvBin(t)
	base := freeBase(t)
	dir := t.TempDir()
	script := func(arg string) (string, int) {
		cmd := exec.Command("sh", "../../deploy/cluster.sh", arg)
		cmd.Env = append(os.Environ(), "LOCKKV="+bin, "DIR="+dir, "BASE="+strconv.Itoa(base), "REQUIREPASS=pw")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	t.Cleanup(func() { script("stop") })
	if out, code := script("start"); code != 0 {
		t.Fatalf("start: exit %d\n%s", code, out)
	}
	for i := 1; i <= 3; i++ {
		addr := fmt.Sprintf("127.0.0.1:%d", base+i)
		testutil.Eventually(t, 20*time.Second, func() error {
			if infoField(t, addr, "raft_leader_id") == "" {
				return fmt.Errorf("n%d knows no leader", i)
			}
			return nil
		})
	}
	if out, code := script("status"); code != 0 || strings.Count(out, ": up on ") != 3 {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if out, code := script("stop"); code != 0 || strings.Count(out, "stopped") != 3 {
		t.Fatalf("stop: exit %d\n%s", code, out)
	}
	if out, code := script("status"); code != 1 || strings.Count(out, ": down") != 3 {
		t.Fatalf("status after stop: exit %d\n%s", code, out)
	}
}

// infoField is a field of INFO replication at addr (AUTH pw).
func infoField(t *testing.T, addr, field string) string {
	t.Helper()
	c := testutil.MustDial(t, addr)
	defer c.Close()
	if v := c.MustDo(t, "AUTH", "pw"); v.Str != "OK" {
		t.Fatalf("AUTH: %v", v)
	}
	v := c.MustDo(t, "INFO", "replication")
	if v.Kind != '$' {
		t.Fatalf("INFO: %v", v)
	}
	for _, line := range strings.Split(v.Str, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}
