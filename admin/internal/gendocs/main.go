// Command gendocs records what Redis 7.0.15 says about its commands: the
// documentation COMMAND DOCS serves (admin/docs.go) and the COMMAND
// INFO replies the command table is checked against
// (admin/cmdinfo_test.go). It starts redis-server 7.0.15 (found on
// PATH) as a server and as a Sentinel, each on a free port in a scratch
// directory, and writes their RESP3 replies byte for byte:
//
//	docs_redis70.resp3        HELLO 3, COMMAND DOCS (every command)
//	docs_sentinel70.resp3     HELLO 3, COMMAND DOCS sentinel (Sentinel mode)
//	cmdinfo_redis70.resp3     HELLO 3, COMMAND INFO (every command)
//	cmdinfo_sentinel70.resp3  HELLO 3, COMMAND INFO sentinel (Sentinel mode)
//
// Run it from admin/ with `go generate` (docs.go holds the directive).
// It refuses any other Redis version, so the files stay 7.0.15's.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const wantVersion = "7.0.15"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run() error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server not found on PATH")
	}
	dir, err := os.MkdirTemp("", "lockkv-gendocs")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	docs, err := record(bin, dir, false, "COMMAND", "DOCS")
	if err != nil {
		return err
	}
	sentinel, err := record(bin, dir, true, "COMMAND", "DOCS", "sentinel")
	if err != nil {
		return err
	}
	info, err := record(bin, dir, false, "COMMAND", "INFO")
	if err != nil {
		return err
	}
	sentinelInfo, err := record(bin, dir, true, "COMMAND", "INFO", "sentinel")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"docs_redis70.resp3": docs, "docs_sentinel70.resp3": sentinel,
		"cmdinfo_redis70.resp3": info, "cmdinfo_sentinel70.resp3": sentinelInfo} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// record starts a redis-server (a Sentinel when sentinel is set), checks
// its version, and returns its raw RESP3 reply to cmd.
func record(bin, dir string, sentinel bool, cmd ...string) ([]byte, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var c *exec.Cmd
	if sentinel {
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile %s\n", port, dir, filepath.Join(dir, "sentinel.log"))
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return nil, err
		}
		c = exec.Command(bin, conf, "--sentinel")
	} else {
		c = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no",
			"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	defer func() {
		c.Process.Kill()
		c.Wait()
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var nc net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		nc, err = net.Dial("tcp", addr)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("redis-server did not start on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(nc)
	do := func(args ...string) ([]byte, error) {
		var b bytes.Buffer
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := nc.Write(b.Bytes()); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		err := copyReply(r, &out)
		return out.Bytes(), err
	}
	info, err := do("INFO", "server")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(info, []byte("redis_version:"+wantVersion+"\r\n")) {
		return nil, fmt.Errorf("%s is not Redis %s", bin, wantVersion)
	}
	if _, err := do("HELLO", "3"); err != nil {
		return nil, err
	}
	return do(cmd...)
}

// copyReply copies one complete RESP3 reply from r to w, unchanged.
func copyReply(r *bufio.Reader, w *bytes.Buffer) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return fmt.Errorf("malformed reply line %q", line)
	}
	w.WriteString(line)
	body := line[1 : len(line)-2]
	switch line[0] {
	case '-':
		return fmt.Errorf("redis replied %s", body)
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if n >= 0 {
			if _, err := io.CopyN(w, r, int64(n)+2); err != nil {
				return err
			}
		}
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := copyReply(r, w); err != nil {
				return err
			}
		}
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
