package server

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// tcpKeepIdle reads SO_KEEPALIVE and TCP_KEEPIDLE of a connection.
func tcpKeepIdle(t *testing.T, nc net.Conn) (on bool, idle int) {
	t.Helper()
	raw, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	raw.Control(func(fd uintptr) {
		k, _ := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		idle, _ = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
		on = k != 0
	})
	return on, idle
}

// TestTCPKeepalive: accepted connections get tcp-keepalive as Redis sets
// it (probes after that many idle seconds; 0 turns them off).
func TestTCPKeepalive(t *testing.T) {
	srv := RunT(t)
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	serverSide := func() net.Conn {
		t.Helper()
		nc, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		// After a reply the reader has set the keepalive (before reading).
		if _, err := nc.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Read(make([]byte, 7)); err != nil {
			t.Fatal(err)
		}
		local := nc.LocalAddr().String()
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for c := range srv.conns {
			if c.nc.RemoteAddr().String() == local {
				return c.nc
			}
		}
		t.Fatal("no server side for the connection")
		return nil
	}
	waitKeep := func(nc net.Conn, on bool, idle int) {
		t.Helper()
		if o, i := tcpKeepIdle(t, nc); o != on || (on && i != idle) {
			t.Errorf("keepalive %v idle %d; want %v %d", o, i, on, idle)
		}
	}
	waitKeep(serverSide(), true, 300)
	if err := admin.ConfigSet(ctx, "tcp-keepalive", "60").Err(); err != nil {
		t.Fatal(err)
	}
	waitKeep(serverSide(), true, 60)
	if err := admin.ConfigSet(ctx, "tcp-keepalive", "0").Err(); err != nil {
		t.Fatal(err)
	}
	waitKeep(serverSide(), false, 0)
}
