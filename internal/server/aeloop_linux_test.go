//go:build linux

package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/internal/testutil"
)

// TestAELoop drives the experimental event loop (LOCKKV_AELOOP, both
// ways of waiting) through what lockkv-bench sends, a pipeline, a reply
// larger than the socket takes at once, a protocol error, QUIT, a client
// that disconnects, and Do.
func TestAELoop(t *testing.T) {
	for _, mode := range []string{"a", "b"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", mode)
			s := RunT(t)
			if s.ae == nil {
				t.Fatal("LOCKKV_AELOOP set, but the event loop does not run")
			}
			dial := func() (net.Conn, *bufio.Reader) {
				nc, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { nc.Close() })
				return nc, bufio.NewReader(nc)
			}
			do := func(nc net.Conn, br *bufio.Reader, args ...string) string {
				t.Helper()
				var w resp.Writer
				w.Array(len(args))
				for _, a := range args {
					w.BulkString(a)
				}
				if _, err := nc.Write(w.B); err != nil {
					t.Fatal(err)
				}
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				return string(reply)
			}
			nc, br := dial()
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"SET", "k", "v"}, "+OK\r\n"},
				{[]string{"GET", "k"}, "$1\r\nv\r\n"},
				{[]string{"HINCRBY", "h", "f", "1"}, ":1\r\n"},
				{[]string{"PEXPIRE", "h", "30000"}, ":1\r\n"},
				{[]string{"EVAL", "return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)", "1", "h", "f"}, ":2\r\n"},
				{[]string{"BOGUS"}, "-ERR unknown command 'BOGUS', with args beginning with: \r\n"},
			} {
				if got := do(nc, br, c.args...); got != c.want {
					t.Errorf("%q: %q, want %q", c.args, got, c.want)
				}
			}

			// A pipeline of 1,000 commands in one write.
			var w resp.Writer
			for i := 0; i < 1000; i++ {
				w.Array(2)
				w.BulkString("INCR")
				w.BulkString("n")
			}
			if _, err := nc.Write(w.B); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 1000; i++ {
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf(":%d\r\n", i); string(reply) != want {
					t.Fatalf("INCR %d: %q", i, reply)
				}
			}

			// 8 MB of replies to a client that reads nothing for a while:
			// the loop keeps the rest for EPOLLOUT and serves others.
			big := strings.Repeat("x", 1<<20)
			do(nc, br, "SET", "big", big)
			w.B = w.B[:0]
			for i := 0; i < 8; i++ {
				w.Array(2)
				w.BulkString("GET")
				w.BulkString("big")
			}
			if _, err := nc.Write(w.B); err != nil {
				t.Fatal(err)
			}
			other, obr := dial()
			if got := do(other, obr, "GET", "k"); got != "$1\r\nv\r\n" {
				t.Fatalf("another client, while one does not read: %q", got)
			}
			want := []byte("$1048576\r\n" + big + "\r\n")
			for i := 0; i < 8; i++ {
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(reply, want) {
					t.Fatalf("GET big %d: %d bytes", i, len(reply))
				}
			}

			// Do runs on the loop.
			var n int
			s.Do(func(e *engine.Engine) { n = len(e.Clients()) })
			if n != 2 {
				t.Errorf("%d clients, want 2", n)
			}

			// A protocol error after a command: its reply, the error, EOF.
			pe, pbr := dial()
			if _, err := pe.Write([]byte("*1\r\n$4\r\nPING\r\n*x\r\n")); err != nil {
				t.Fatal(err)
			}
			pe.SetReadDeadline(time.Now().Add(10 * time.Second))
			rest, _ := io.ReadAll(pbr)
			if want := "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"; string(rest) != want {
				t.Errorf("protocol error: %q, want %q", rest, want)
			}

			// A request and the end of the client's stream together:
			// the reply, then EOF.
			// Sent while the loop runs a script for another client, they
			// reach the socket together, reported by one edge.
			hc, hbr := dial()
			if got := do(hc, hbr, "PING"); got != "+PONG\r\n" {
				t.Fatalf("PING: %q", got)
			}
			var busy resp.Writer
			busy.Array(3)
			busy.BulkString("EVAL")
			busy.BulkString("local i = 0 while i < 2000000 do i = i + 1 end return i")
			busy.BulkString("0")
			if _, err := other.Write(busy.B); err != nil {
				t.Fatal(err)
			}
			if _, err := hc.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
				t.Fatal(err)
			}
			hc.(*net.TCPConn).CloseWrite()
			if got, err := resp.ReadReply(obr, nil); err != nil || string(got) != ":2000000\r\n" {
				t.Fatalf("EVAL: %q %v", got, err)
			}
			hc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if rest, err := io.ReadAll(hbr); err != nil || string(rest) != "+PONG\r\n" {
				t.Errorf("PING, then FIN: %q %v", rest, err)
			}

			// QUIT: +OK, then EOF; a client that goes away is freed.
			if got := do(other, obr, "QUIT"); got != "+OK\r\n" {
				t.Errorf("QUIT: %q", got)
			}
			other.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := obr.ReadByte(); err != io.EOF {
				t.Errorf("after QUIT: %v, want EOF", err)
			}
			nc.Close()
			testutil.Eventually(t, 10*time.Second, func() error {
				s.Do(func(e *engine.Engine) { n = len(e.Clients()) })
				if n != 0 {
					return fmt.Errorf("%d clients", n)
				}
				return nil
			})
		})
	}
}
