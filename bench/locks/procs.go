package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// env owns everything one run of the benchmark creates: a temporary
// directory (data directories, logs, the lockkv binary) and the server
// processes. close ends them all; it runs on return from main and on
// SIGINT/SIGTERM, and on Linux every process also gets SIGKILL from the
// kernel when this one dies (Pdeathsig), however it dies.
type env struct {
	dir string

	mu     sync.Mutex
	procs  []*proc
	closed bool
}

// proc is one server process.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
}

func newEnv() (*env, error) {
	dir, err := os.MkdirTemp("", "lockkv-bench-locks-")
	if err != nil {
		return nil, err
	}
	return &env{dir: dir}, nil
}

// path returns a path inside the run's directory.
func (e *env) path(parts ...string) string {
	return filepath.Join(append([]string{e.dir}, parts...)...)
}

// mkdir creates a directory inside the run's directory.
func (e *env) mkdir(name string) (string, error) {
	p := e.path(name)
	return p, os.MkdirAll(p, 0o755)
}

// spawn starts bin with args; its output goes to <name>.log in the run's
// directory. The process is in its own process group, so a terminal's ^C
// reaches only this program, which then stops the servers in order.
func (e *env) spawn(name, bin string, args ...string) (*proc, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("%s: shutting down", name)
	}
	logPath := e.path(name + ".log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logf, "=== %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = testutil.ChildProcAttr(true)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	e.procs = append(e.procs, p)
	return p, nil
}

// exited reports whether p has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tail returns the last n lines of p's log.
func (p *proc) tail(n int) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

// stop sends SIGTERM and, after 5 s, SIGKILL.
func (p *proc) stop() {
	if p.exited() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// close stops every process (concurrently) and removes the run's
// directory. It is safe to call more than once.
func (e *env) close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	procs := e.procs
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.stop() }()
	}
	wg.Wait()
	os.RemoveAll(e.dir)
}

// closing reports whether close has begun: errors after it are the
// shutdown's, not the servers'.
func (e *env) closing() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// freeAddrs returns n distinct free loopback addresses.
func freeAddrs(n int) ([]string, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var out []string
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	return out, nil
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// findRepo returns the root of the lockkv checkout: the nearest directory
// at or above the working directory whose go.mod declares module
// github.com/lockkv/lockkv.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modulePath(b) == "github.com/lockkv/lockkv" {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no lockkv checkout (go.mod of github.com/lockkv/lockkv) at or above %s; use -repo or -lockkv-bin", dir)
		}
	}
}

func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// buildLockkv builds cmd/lockkv of the checkout at repo into the run's
// directory.
func (e *env) buildLockkv(repo string) (string, error) {
	bin := e.path("lockkv")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/lockkv")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/lockkv in %s: %v\n%s", repo, err, out)
	}
	return bin, nil
}

// version returns the first line bin prints for arg (such as --version).
func version(bin string, arg string) string {
	out, err := exec.Command(bin, arg).CombinedOutput()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
