package testutil

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// fakeTB records what a helper reports instead of failing the test.
type fakeTB struct{ fatal string }

func (f *fakeTB) Helper()        {}
func (f *fakeTB) Cleanup(func()) {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
}

func TestPollReturnsOnceTrue(t *testing.T) {
	tries := 0
	err := Poll(5*time.Second, func() error {
		if tries++; tries < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Fatalf("Poll: %v after %d tries, want nil after 3", err, tries)
	}
}

// TestEventuallyReportsLastError: at the deadline the failure names the
// last error f returned, not the first.
func TestEventuallyReportsLastError(t *testing.T) {
	var tb fakeTB
	tries := 0
	Eventually(&tb, 30*time.Millisecond, func() error {
		tries++
		return fmt.Errorf("try %d", tries)
	})
	if want := fmt.Sprintf("try %d", tries); tries < 2 || !strings.HasSuffix(tb.fatal, want) {
		t.Fatalf("after %d tries the failure is %q, want it to end in %q", tries, tb.fatal, want)
	}
	// A zero duration still tries once.
	tb, tries = fakeTB{}, 0
	Eventually(&tb, 0, func() error { tries++; return nil })
	if tries != 1 || tb.fatal != "" {
		t.Fatalf("zero duration: %d tries, failure %q", tries, tb.fatal)
	}
}

func TestCommandAndReadValue(t *testing.T) {
	if got, want := string(Command("SET", "k", "a\r\nb", "")), "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n$0\r\n\r\n"; got != want {
		t.Fatalf("Command: %q, want %q", got, want)
	}
	in := "+OK\r\n-ERR x\r\n:12\r\n$-1\r\n$3\r\na\r\n\r\n*2\r\n$1\r\nx\r\n*-1\r\n%1\r\n+k\r\n_\r\n>2\r\n+m\r\n,1.5\r\n"
	r := bufio.NewReader(strings.NewReader(in))
	var got []string
	for range 8 {
		v, err := ReadValue(r)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, v.String())
	}
	want := []string{"+OK", "-ERR x", ":12", "(nil)", `"a\r\n"`, `*["x", (nil array)]`, "%[+k, (null)]", ">[+m, ,1.5]"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("read %q, want %q", got, want)
	}
	for _, bad := range []string{"$3\r\nabcd\r\n", "?x\r\n", "+OK\n", "*2\r\n+a\r\n"} {
		if v, err := ReadValue(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q read as %v, want an error", bad, v)
		}
	}
}

// TestConnAgainstServer drives Conn, Ping and MustDial against a server
// that answers PING, then closes.
func TestConnAgainstServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				r := bufio.NewReader(nc)
				for {
					v, err := ReadValue(r)
					if err != nil {
						return
					}
					switch strings.ToUpper(v.Elems[0].Str) {
					case "PING":
						nc.Write([]byte("+PONG\r\n"))
					case "QUIT":
						nc.Write([]byte("+OK\r\n"))
						return
					default:
						nc.Write([]byte("-ERR unknown\r\n"))
					}
				}
			}()
		}
	}()
	if err := Ping(ln.Addr().String()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	c := MustDial(t, ln.Addr().String())
	if v := c.MustDo(t, "NOPE"); v.Kind != '-' || v.Str != "ERR unknown" {
		t.Fatalf("NOPE: %v", v)
	}
	if err := c.Send("PING"); err != nil {
		t.Fatal(err)
	}
	if l, err := c.ReadLine(time.Second); err != nil || l != "+PONG" {
		t.Fatalf("ReadLine: %q %v", l, err)
	}
	if c.Closed(20 * time.Millisecond) {
		t.Fatal("Closed while the server keeps the connection")
	}
	c.Send("QUIT")
	if v, err := c.Read(time.Second); err != nil || v.Str != "OK" {
		t.Fatalf("QUIT: %v %v", v, err)
	}
	if !c.Closed(time.Second) {
		t.Fatal("not Closed after QUIT")
	}
}
