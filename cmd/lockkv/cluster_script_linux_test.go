package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
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
	deadline := time.Now().Add(20 * time.Second)
	for i := 1; i <= 3; i++ {
		addr := fmt.Sprintf("127.0.0.1:%d", base+i)
		for {
			if infoField(t, addr, "raft_leader_id") != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("n%d knows no leader", i)
			}
			time.Sleep(100 * time.Millisecond)
		}
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
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	nc.Write([]byte("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*2\r\n$4\r\nINFO\r\n$11\r\nreplication\r\n"))
	r := bufio.NewReader(nc)
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("AUTH: %q %v", line, err)
	}
	head, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		t.Fatalf("INFO: %q %v", head, err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
	body := make([]byte, n+2)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}
