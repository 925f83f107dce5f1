package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testnet"
)

// notListening checks that nothing accepts connections at addr.
func notListening(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("%s accepts connections", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
}

// nodeArgs are the flags of a durable single node on dir.
func nodeArgs(t *testing.T, dir string) (addr string, args []string) {
	addr = testnet.FreeAddr(t)
	return addr, []string{"--addr", addr, "--raft-addr", testnet.FreeAddr(t), "--data-dir", dir, "--requirepass", "pw"}
}

// A second lockkv on a data dir another one holds fails at once, naming
// the directory, its lock and the holder, and never opens its client port.
func TestDataDirInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	_, args := nodeArgs(t, dir)
	first := startProc(t, nil, args...)
	first.waitLine(listeningRE, 20*time.Second)

	addr2, args2 := nodeArgs(t, dir)
	second := startProc(t, nil, args2...)
	err := second.waitExit(5 * time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second lockkv on the same data dir: exit %v, want status 1", err)
	}
	want := fmt.Sprintf("data dir %s is in use by another lockkv process (lock %s, held by pid %d)",
		dir, filepath.Join(dir, "LOCK"), first.cmd.Process.Pid)
	if out := second.output(); !strings.Contains(out, want) {
		t.Fatalf("second lockkv's log lacks %q:\n%s", want, out)
	}
	notListening(t, addr2)

	// The first one still serves; once it has stopped, the directory is
	// free again.
	first.cmd.Process.Signal(syscall.SIGTERM)
	if err := first.waitExit(10 * time.Second); err != nil {
		t.Fatalf("first lockkv: %v", err)
	}
	third := startProc(t, nil, args2...)
	third.waitLine(listeningRE, 20*time.Second)
}

// SIGTERM and SIGINT end a lockkv that is still starting (here: waiting
// for a store file another process holds locked), promptly and with a log
// line, before its client port opened.
func TestSignalWhileStarting(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			meta := filepath.Join(dir, "wal", "wal-meta.db")
			if err := os.MkdirAll(filepath.Dir(meta), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(meta)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// What a lockkv older than the data dir LOCK, or a tool with
			// the store open, would hold.
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			addr, args := nodeArgs(t, dir)
			p := startProc(t, nil, args...)
			p.waitLine(regexp.MustCompile(`waiting for a file another process has locked.*wal-meta.db`), 20*time.Second)
			notListening(t, addr)
			p.cmd.Process.Signal(sig)
			err = p.waitExit(5 * time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want status 1", err)
			}
			if out := p.output(); !strings.Contains(out, "signal received while starting") {
				t.Fatalf("no log line about the signal:\n%s", out)
			}
		})
	}
}

// Data dirs lockkv cannot use are errors naming the directory and why,
// before the client port opens. A test run as root runs lockkv as nobody,
// whom permissions bind.
func TestDataDirUnusable(t *testing.T) {
	asUser := func(cmd *exec.Cmd) {
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
	}
	base := t.TempDir()
	// nobody may look inside (t.TempDir makes both levels 0700)
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	file := filepath.Join(base, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	unreadable := filepath.Join(base, "unreadable")
	os.Mkdir(unreadable, 0o755)
	os.Chmod(unreadable, 0o300)
	readOnly := filepath.Join(base, "readonly")
	os.Mkdir(readOnly, 0o755)
	os.Chmod(readOnly, 0o555)
	t.Cleanup(func() { os.Chmod(unreadable, 0o755); os.Chmod(readOnly, 0o755) })
	for _, tc := range []struct{ dir, want string }{
		{file, "data dir " + file + " is not a directory"},
		{filepath.Join(file, "sub"), "data dir " + filepath.Join(file, "sub") + " cannot be used: not a directory"},
		{unreadable, "data dir " + unreadable + " is not readable: permission denied"},
		{readOnly, "data dir " + readOnly + " is not writable (lock file " + filepath.Join(readOnly, "LOCK") + "): permission denied"},
	} {
		addr, args := nodeArgs(t, tc.dir)
		p := startProc(t, asUser, args...)
		err := p.waitExit(10 * time.Second)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%s: exit %v, want status 1", tc.dir, err)
		}
		if out := p.output(); !strings.Contains(out, tc.want) {
			t.Errorf("%s: log lacks %q:\n%s", tc.dir, tc.want, out)
		}
		notListening(t, addr)
	}
}
