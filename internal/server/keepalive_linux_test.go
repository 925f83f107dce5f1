package server

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/lockkv/lockkv/engine"
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

// fdKeepIdle reads SO_KEEPALIVE and TCP_KEEPIDLE of a descriptor.
func fdKeepIdle(fd int) (on bool, idle int) {
	k, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	idle, _ = syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
	return k != 0, idle
}

// TestTCPKeepalive: accepted connections get tcp-keepalive as Redis sets
// it (probes after that many idle seconds; 0 turns them off), on the
// connection goroutines' path and on the event loop's.
func TestTCPKeepalive(t *testing.T) {
	for _, ae := range aeModes {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			testTCPKeepalive(t)
		})
	}
}

func testTCPKeepalive(t *testing.T) {
	srv := RunT(t)
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	// keep returns the keepalive of the server's side of a new
	// connection.
	keep := func() (on bool, idle int) {
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
		if srv.ae != nil {
			found := false
			srv.Do(func(*engine.Engine) {
				for _, c := range srv.ae.conns {
					if c != nil && !c.closed && c.remote == local {
						on, idle = fdKeepIdle(c.fd)
						found = true
					}
				}
			})
			if !found {
				t.Fatal("no server side for the connection")
			}
			return on, idle
		}
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for c := range srv.conns {
			if c.nc.RemoteAddr().String() == local {
				return tcpKeepIdle(t, c.nc)
			}
		}
		t.Fatal("no server side for the connection")
		return false, 0
	}
	waitKeep := func(on bool, idle int) {
		t.Helper()
		if o, i := keep(); o != on || (on && i != idle) {
			t.Errorf("keepalive %v idle %d; want %v %d", o, i, on, idle)
		}
	}
	waitKeep(true, 300)
	if err := admin.ConfigSet(ctx, "tcp-keepalive", "60").Err(); err != nil {
		t.Fatal(err)
	}
	waitKeep(true, 60)
	if err := admin.ConfigSet(ctx, "tcp-keepalive", "0").Err(); err != nil {
		t.Fatal(err)
	}
	waitKeep(false, 0)
}
