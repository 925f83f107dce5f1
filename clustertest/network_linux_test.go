package clustertest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// network is the Raft network of a test cluster: one TCP proxy in front of
// each node's Raft port. A node advertises its proxy, so every Raft
// connection to node j enters proxy j. Cutting node i off refuses (and
// closes) connections into proxy i and connections that node i opens to
// the other proxies, so i can neither send nor receive Raft traffic.
//
// A proxy learns which node dialled it from the kernel: the accepted
// connection's peer port names a socket in /proc/net/tcp, whose inode is
// held open by exactly one node process.
type network struct {
	t       testing.TB
	proxies []*proxy
	pids    func() map[int]int // pid -> node index, of the running nodes

	mu    sync.Mutex
	cut   map[int]bool
	conns map[*proxyConn]struct{}
}

type proxy struct {
	n      *network
	index  int
	ln     net.Listener
	target string // the node's real Raft address
	wg     sync.WaitGroup
}

type proxyConn struct {
	src, dst int // node indexes; src is -1 when unknown
	a, b     net.Conn
	once     sync.Once
}

func (pc *proxyConn) close() {
	pc.once.Do(func() {
		pc.a.Close()
		pc.b.Close()
	})
}

func newNetwork(t testing.TB, n int) *network {
	nw := &network{t: t, cut: map[int]bool{}, conns: map[*proxyConn]struct{}{}}
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := &proxy{n: nw, index: i, ln: ln}
		nw.proxies = append(nw.proxies, p)
	}
	t.Cleanup(nw.close)
	return nw
}

// addr is the address node i advertises for Raft.
func (nw *network) addr(i int) string { return nw.proxies[i].ln.Addr().String() }

// serve starts proxy i forwarding to target.
func (nw *network) serve(i int, target string) {
	p := nw.proxies[i]
	p.target = target
	p.wg.Add(1)
	go p.acceptLoop()
}

func (nw *network) close() {
	for _, p := range nw.proxies {
		p.ln.Close()
	}
	nw.mu.Lock()
	for pc := range nw.conns {
		pc.close()
	}
	nw.mu.Unlock()
	for _, p := range nw.proxies {
		p.wg.Wait()
	}
}

// partition cuts node i off in both directions.
func (nw *network) partition(i int) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	nw.cut[i] = true
	for pc := range nw.conns {
		if !nw.allowedLocked(pc.src, pc.dst) {
			pc.close()
		}
	}
}

// heal reconnects every node.
func (nw *network) heal() {
	nw.mu.Lock()
	nw.cut = map[int]bool{}
	nw.mu.Unlock()
}

func (nw *network) isCut(i int) bool {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.cut[i]
}

// allowedLocked reports whether traffic from src to dst may flow. A
// connection of unknown origin is refused while anyone is cut off: it
// might come from the cut node (which then dials again).
func (nw *network) allowedLocked(src, dst int) bool {
	if nw.cut[dst] {
		return false
	}
	if src < 0 {
		return len(nw.cut) == 0
	}
	return !nw.cut[src]
}

func (p *proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.handle(c)
		}()
	}
}

func (p *proxy) handle(c net.Conn) {
	nw := p.n
	src := -1
	if nw.pids != nil {
		src = dialer(c, nw.pids())
	}
	nw.mu.Lock()
	ok := nw.allowedLocked(src, p.index)
	nw.mu.Unlock()
	if !ok {
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	pc := &proxyConn{src: src, dst: p.index, a: c, b: up}
	nw.mu.Lock()
	if !nw.allowedLocked(src, p.index) { // cut while dialling
		nw.mu.Unlock()
		pc.close()
		return
	}
	nw.conns[pc] = struct{}{}
	nw.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(up, c); pc.close() }()
	go func() { defer wg.Done(); io.Copy(c, up); pc.close() }()
	wg.Wait()
	nw.mu.Lock()
	delete(nw.conns, pc)
	nw.mu.Unlock()
}

// dialer finds which node process opened the connection c accepted: the
// socket whose local port is c's remote port and whose remote port is c's
// local port, looked up in /proc/net/tcp, is open in one of pids' fd
// tables. It returns -1 if none holds it.
func dialer(c net.Conn, pids map[int]int) int {
	ra, ok1 := c.RemoteAddr().(*net.TCPAddr)
	la, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1
	}
	inode := socketInode(ra.Port, la.Port)
	if inode == "" {
		return -1
	}
	want := "socket:[" + inode + "]"
	for pid, idx := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == want {
				return idx
			}
		}
	}
	return -1
}

// socketInode returns the inode of the IPv4 TCP socket with the given
// local and remote ports, from /proc/net/tcp.
func socketInode(localPort, remotePort int) string {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 {
			continue
		}
		if hexPort(fs[1]) == localPort && hexPort(fs[2]) == remotePort {
			return fs[9]
		}
	}
	return ""
}

// hexPort reads the port of a /proc/net/tcp address ("0100007F:1F90").
func hexPort(s string) int {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return -1
	}
	n, err := strconv.ParseUint(s[i+1:], 16, 32)
	if err != nil {
		return -1
	}
	return int(n)
}
