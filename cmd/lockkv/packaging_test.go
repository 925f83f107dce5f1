package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testcerts"
	"github.com/lockkv/lockkv/internal/testnet"
)

// deploy/lockkv.service passes systemd-analyze verify (with ExecStart
// pointing at a built binary: verify checks that it is executable), and
// its sandboxing rates as systemd's "OK" exposure or better.
func TestSystemdUnit(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("SKIPPED: systemd-analyze is not installed (apt-get install -y systemd): deploy/lockkv.service is unchecked")
	}
	unit, err := os.ReadFile("../../deploy/lockkv.service")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "ExecStart=/usr/local/bin/lockkv /etc/lockkv/lockkv.conf\n") {
		t.Fatal("ExecStart is not /usr/local/bin/lockkv /etc/lockkv/lockkv.conf")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lockkv.service")
	os.WriteFile(path, []byte(strings.Replace(string(unit), "ExecStart=/usr/local/bin/lockkv", "ExecStart="+lockkvBin(t), 1)), 0o644)
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(sa, "security", "--offline=true", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for lockkv.service: ([0-9.]+) (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("systemd-analyze security said:\n%s", out)
	}
	if score, _ := strconv.ParseFloat(m[1], 64); score > 2 {
		t.Errorf("exposure %s %s, want 2 or less:\n%s", m[1], m[2], out)
	}
}

// lockkv ping: exit 0 on PONG, 1 with the server's refusal or no server.
func TestPing(t *testing.T) {
	p := startProc(t, nil, "--addr", "127.0.0.1:0", "--requirepass", "pw")
	addr := p.waitLine(listeningRE, 10*time.Second)[1]
	bin := lockkvBin(t)
	for _, tc := range []struct {
		args []string
		env  string
		code int
		want string
	}{
		{[]string{"--addr", addr}, "", 1, "NOAUTH Authentication required."},
		{[]string{"--addr", addr, "--requirepass", "bad"}, "", 1, "WRONGPASS"},
		{[]string{"--addr", addr, "--requirepass", "pw"}, "", 0, "PONG"},
		{[]string{"--addr", addr}, "pw", 0, "PONG"},
		{[]string{"--addr", testnet.FreeAddr(t), "--timeout", "2s"}, "pw", 1, "connection refused"},
		{[]string{"--addr", addr, "extra"}, "", 2, `unexpected argument "extra"`},
	} {
		cmd := exec.Command(bin, append([]string{"ping"}, tc.args...)...)
		cmd.Env = append(os.Environ(), "REDISCLI_AUTH="+tc.env)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(string(out), tc.want) {
			t.Errorf("lockkv ping %q (REDISCLI_AUTH=%q): exit %d, %q; want %d and %q", tc.args, tc.env, code, out, tc.code, tc.want)
		}
	}

	// Over TLS, with a client certificate the server requires.
	ca := testcerts.NewCA(t, "ping CA")
	cert, key := ca.Issue(t, "server")
	os.Chmod(filepath.Dir(cert), 0o755)
	tp := startProc(t, nil, "--addr", "", "--tls-addr", "127.0.0.1:0", "--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", ca.CAFile)
	tlsAddr := tp.waitLine(regexp.MustCompile(`listening for TLS.*addr=(\S+)`), 10*time.Second)[1]
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tls", "--tls-ca-cert-file", ca.CAFile, "--tls-cert-file", cert, "--tls-key-file", key}, 0, "PONG"},
		{[]string{"--tls", "--tls-ca-cert-file", ca.CAFile}, 1, "certificate"},
		{[]string{"--tls", "--tls-cert-file", cert, "--tls-key-file", key}, 1, "certificate signed by unknown authority"},
	} {
		out, err := exec.Command(bin, append([]string{"ping", "--addr", tlsAddr}, tc.args...)...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.code || !strings.Contains(string(out), tc.want) {
			t.Errorf("lockkv ping %q: exit %d, %q; want %d and %q", tc.args, code, out, tc.code, tc.want)
		}
	}
}

// lockkv ready: exit 0 when /ready answers 200, 1 with the server's
// reason otherwise (a lone --node-id node waits to be added: it has no
// leader) or when nothing answers; the Dockerfile's health check uses it.
func TestReady(t *testing.T) {
	bin := lockkvBin(t)
	run := func(args ...string) (int, string) {
		out, err := exec.Command(bin, append([]string{"ready"}, args...)...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	metricsRE := regexp.MustCompile(`serving metrics.*addr=(\S+)`)
	p := startProc(t, nil, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	m := p.waitLine(metricsRE, 10*time.Second)[1]
	if code, out := run("--metrics-addr", m); code != 0 || !strings.Contains(out, "serving (standalone)") {
		t.Errorf("lockkv ready on a standalone server: exit %d, %q", code, out)
	}
	// A node that waits to be added serves PING but is not ready.
	w := startProc(t, nil, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--node-id", "n9",
		"--data-dir", t.TempDir(), "--raft-addr", testnet.FreeAddr(t))
	wm := w.waitLine(metricsRE, 10*time.Second)[1]
	if code, out := run("--metrics-addr", wm); code != 1 || !strings.Contains(out, "503") {
		t.Errorf("lockkv ready on a node waiting to be added: exit %d, %q", code, out)
	}
	if code, out := run("--metrics-addr", testnet.FreeAddr(t), "--timeout", "2s"); code != 1 || !strings.Contains(out, "connection refused") {
		t.Errorf("lockkv ready with nothing listening: exit %d, %q", code, out)
	}
	if code, out := run("extra"); code != 2 || !strings.Contains(out, `unexpected argument "extra"`) {
		t.Errorf("lockkv ready extra: exit %d, %q", code, out)
	}
}
