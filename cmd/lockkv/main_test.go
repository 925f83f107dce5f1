package main

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// TestBinary builds lockkv, runs it on a free port, checks that it serves
// and that SIGTERM shuts it down cleanly.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "lockkv")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--requirepass", "pw", "--log-level", "debug")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	addrRE := regexp.MustCompile(`listening.*addr=(\S+)`)
	var addr string
	deadline := time.After(10 * time.Second)
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("lockkv exited before listening")
			}
			if m := addrRE.FindStringSubmatch(l); m != nil {
				addr = m[1]
			}
		case <-deadline:
			t.Fatal("no \"listening\" log line")
		}
	}

	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(nc)
	for _, step := range []struct{ req, want string }{
		{"PING\r\n", "-NOAUTH Authentication required.\r\n"},
		{"AUTH pw\r\n", "+OK\r\n"},
		{"PING\r\n", "+PONG\r\n"},
	} {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.Write([]byte(step.req))
		got, err := r.ReadString('\n')
		if err != nil || got != step.want {
			t.Fatalf("%q: got %q, %v; want %q", step.req, got, err, step.want)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lockkv exited with %v after SIGTERM", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lockkv did not exit after SIGTERM")
	}
	// The client's connection was closed.
	nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("connection still open after shutdown")
	}

	// Settings that cannot serve are refused before anything listens.
	for _, args := range [][]string{
		{"--addr", ""},                // no listener at all
		{"--tls-addr", "127.0.0.1:0"}, // TLS without a certificate
		{"--tls-cert-file", "x.crt", "--tls-key-file", "x.key"}, // files without --tls-addr
		{"--enable-debug-command", "sometimes"},
		{"--protected-mode", "maybe"},
		{"--log-level", "loud"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, bin, append([]string{"--addr", "127.0.0.1:0"}, args...)...).CombinedOutput()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() <= 0 {
			t.Errorf("lockkv %q: %v, want a refusal:\n%s", args, err, out)
		}
	}
}
