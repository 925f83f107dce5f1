// Package testnet gives tests loopback addresses to listen on later, for
// servers that are told their address before they bind it (cluster peers,
// redis-server processes).
//
// Asking the kernel for port 0 and closing the listener, the usual trick,
// hands out ports from the ephemeral range: the kernel gives the same port
// to the next outgoing connection or port-0 listener of any process, so a
// cluster could be configured with one address twice, or find its port
// taken by a client's connection before it binds. Ports here come from
// below the ephemeral range instead, which the kernel never picks by
// itself; each process starts at its own offset and never hands out a
// port twice.
package testnet

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// TB is the part of testing.TB FreeAddr needs.
type TB interface {
	Helper()
	Fatal(args ...any)
}

var (
	mu     sync.Mutex
	lo, hi int // the range ports are taken from: [lo, hi)
	next   int
)

// FreeAddr returns "127.0.0.1:port" for a port nothing listens on now and
// that no earlier call of this process returned.
func FreeAddr(t TB) string {
	t.Helper()
	addr, err := Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// FreePort is FreeAddr's port.
func FreePort(t TB) int {
	t.Helper()
	_, port, _ := net.SplitHostPort(FreeAddr(t))
	p, _ := strconv.Atoi(port)
	return p
}

// Addr is FreeAddr for code without a testing.TB (a TestMain).
func Addr() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if lo == 0 {
		lo, hi = portRange()
		next = lo + (os.Getpid()*7919)%(hi-lo)
	}
	var err error
	for range hi - lo {
		p := next
		if next++; next >= hi {
			next = lo
		}
		var ln net.Listener
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
		if ln, err = net.Listen("tcp", addr); err == nil {
			ln.Close()
			return addr, nil
		}
	}
	// No port below the ephemeral range is free: take one from the
	// kernel.
	ln, err2 := net.Listen("tcp", "127.0.0.1:0")
	if err2 != nil {
		return "", err2
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// portRange is 20000 up to the start of the kernel's ephemeral range (or
// 32768, Linux's default, when it cannot be read or is too low).
func portRange() (int, int) {
	const start, dflt = 20000, 32768
	end := dflt
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				end = v
			}
		}
	}
	if end-start < 1000 {
		end = dflt
	}
	return start, end
}
