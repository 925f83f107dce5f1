package replication

import (
	"bufio"
	"crypto/tls"
	"net"
	"time"

	"github.com/lockkv/lockkv/internal/resp"
)

// peerConn is a RESP connection to another member's client port: join
// requests, progress reports, forwarded commands. It AUTHs with the
// cluster's password when there is one.
type peerConn struct {
	addr string
	nc   net.Conn
	br   *bufio.Reader
	w    resp.Writer
}

// dialPeer connects to addr (with TLS when tc is set) and authenticates.
func dialPeer(addr, password string, tc *tls.Config, timeout time.Duration) (*peerConn, error) {
	d := &net.Dialer{Timeout: timeout}
	var nc net.Conn
	var err error
	if tc != nil {
		nc, err = tls.DialWithDialer(d, "tcp", addr, tc)
	} else {
		nc, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	c := &peerConn{addr: addr, nc: nc, br: bufio.NewReader(nc)}
	if password != "" {
		if _, err := c.call(timeout, []byte("AUTH"), []byte(password)); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return c, nil
}

// errorReply is an error the peer answered.
type errorReply string

func (e errorReply) Error() string { return string(e) }

// call sends one command and returns its raw reply; an error reply becomes
// an errorReply.
func (c *peerConn) call(timeout time.Duration, args ...[]byte) ([]byte, error) {
	c.w.Reset()
	c.w.Array(len(args))
	for _, a := range args {
		c.w.Bulk(a)
	}
	if timeout > 0 {
		c.nc.SetDeadline(time.Now().Add(timeout))
		defer c.nc.SetDeadline(time.Time{})
	}
	if _, err := c.nc.Write(c.w.B); err != nil {
		return nil, err
	}
	reply, err := resp.ReadReply(c.br, nil)
	if err != nil {
		return nil, err
	}
	if reply[0] == '-' {
		return reply, errorReply(reply[1 : len(reply)-2])
	}
	return reply, nil
}

func (c *peerConn) Close() error { return c.nc.Close() }
