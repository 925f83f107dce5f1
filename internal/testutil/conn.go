package testutil

import (
	"bufio"
	"fmt"
	"net"
	"syscall"
	"time"
)

// Conn is a raw RESP connection: it sends commands as a client does and
// reads replies (and RESP3 pushes) as Values, or as bare lines for tests of
// the protocol itself.
type Conn struct {
	nc   net.Conn
	r    *bufio.Reader
	Addr string // the address dialled
}

// Dial connects to addr.
func Dial(addr string) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return NewConn(nc, addr), nil
}

// MustDial is Dial that fails t on error and closes the connection when t
// ends.
func MustDial(t TB, addr string) *Conn {
	t.Helper()
	c, err := Dial(addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DialSlowReader is MustDial with a 4 KiB receive buffer, so that the
// server's output to the connection backs up after little data (tests of
// output buffer limits and slow clients).
func DialSlowReader(t TB, addr string) *Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return NewConn(nc, addr)
}

// NewConn wraps an established connection to addr.
func NewConn(nc net.Conn, addr string) *Conn {
	return &Conn{nc: nc, r: bufio.NewReader(nc), Addr: addr}
}

// NetConn returns the underlying connection.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Reader returns the buffered reader replies are read from; bytes read
// through it are not seen by Read.
func (c *Conn) Reader() *bufio.Reader { return c.r }

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Send writes a command without reading its reply.
func (c *Conn) Send(args ...string) error { return c.SendRaw(Command(args...)) }

// SendRaw writes raw bytes.
func (c *Conn) SendRaw(b []byte) error {
	c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.nc.Write(b)
	return err
}

// Read reads one reply, waiting at most timeout.
func (c *Conn) Read(timeout time.Duration) (Value, error) {
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	return ReadValue(c.r)
}

// ReadLine reads one line of the stream, without its CRLF, waiting at
// most timeout.
func (c *Conn) ReadLine(timeout time.Duration) (string, error) {
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	l, err := c.r.ReadString('\n')
	if err != nil {
		return l, err
	}
	l = l[:len(l)-1]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, nil
}

// Do sends a command and reads its reply.
func (c *Conn) Do(args ...string) (Value, error) {
	if err := c.Send(args...); err != nil {
		return Value{}, err
	}
	return c.Read(10 * time.Second)
}

// MustDo is Do that fails t on a network error. An error reply is a
// Value like any other, for the caller to check.
func (c *Conn) MustDo(t TB, args ...string) Value {
	t.Helper()
	v, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%q on %s: %v", args, c.Addr, err)
	}
	return v
}

// Closed reports whether the server closed the connection within timeout.
func (c *Conn) Closed(timeout time.Duration) bool {
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	_, err := c.r.ReadByte()
	if err == nil {
		return false
	}
	ne, ok := err.(net.Error)
	return !(ok && ne.Timeout())
}

// Ping dials addr, sends PING and closes the connection. It returns nil
// when the server answered +PONG: poll it to wait for a server to start.
func Ping(addr string) error {
	c, err := Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	v, err := c.Do("PING")
	if err != nil {
		return err
	}
	if v.Kind != '+' || v.Str != "PONG" {
		return fmt.Errorf("%s answered PING with %v", addr, v)
	}
	return nil
}
