package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// lockkvBin builds lockkv once per test run, into a directory anyone may
// read (a test runs it as another user).
func lockkvBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "lockkv-bin"); binErr != nil {
			return
		}
		os.Chmod(binDir, 0o755)
		binPath = filepath.Join(binDir, "lockkv")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a lockkv process whose log lines the test reads.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	log   []string
	done  chan struct{}
	err   error // the exit status, once done is closed
}

// startProc starts lockkv with args; setup may adjust the command first.
func startProc(t *testing.T, setup func(*exec.Cmd), args ...string) *proc {
	t.Helper()
	cmd := exec.Command(lockkvBin(t), args...)
	if setup != nil {
		setup(cmd)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log = append(p.log, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.lines)
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("lockkv %s log:\n%s", strings.Join(args, " "), p.output())
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

// waitLine waits up to d for a log line matching re and returns its
// submatches.
func (p *proc) waitLine(re *regexp.Regexp, d time.Duration) []string {
	p.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("lockkv exited (%v) before logging %q", p.err, re)
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no log line %q within %v", re, d)
		}
	}
}

// waitExit waits up to d for the process to end and returns its status.
func (p *proc) waitExit(d time.Duration) error {
	p.t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(d):
		p.t.Fatalf("lockkv still running %v later", d)
		return nil
	}
}

var listeningRE = regexp.MustCompile(`listening.*addr=(\S+)`)

// TestBinary builds lockkv, runs it on a free port, checks that it serves
// and that SIGTERM shuts it down cleanly.
func TestBinary(t *testing.T) {
	p := startProc(t, nil, "--addr", "127.0.0.1:0", "--requirepass", "pw", "--log-level", "debug")
	addr := p.waitLine(listeningRE, 10*time.Second)[1]

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

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.waitExit(10 * time.Second); err != nil {
		t.Fatalf("lockkv exited with %v after SIGTERM", err)
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
		out, err := exec.CommandContext(ctx, lockkvBin(t), append([]string{"--addr", "127.0.0.1:0"}, args...)...).CombinedOutput()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() <= 0 {
			t.Errorf("lockkv %q: %v, want a refusal:\n%s", args, err, out)
		}
	}
}
