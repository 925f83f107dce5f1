package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/bench"
)

// The failover measurement (-failover N): o.clients lock clients work on a
// lockkv cluster target; the leader gets SIGKILL; the time from the kill to
// the first lock a surviving node acknowledges is one sample. The killed
// node is restarted and the cluster settles before the next round. With
// -steady D the clients first work for D without any kill and the Raft
// terms before and after tell whether an election happened (a spurious
// one: nothing failed).

// failoverClient is a lock client that follows the leader as a plain
// client of a cluster would: on MOVED it goes where it is sent, on any
// other error (connection refused or reset, CLUSTERDOWN, a write that may
// or may not have been applied) it tries the next node after retry.
type failoverClient struct {
	nodes []string
	cur   int
	c     *bench.Client
	owner []byte
	lease []byte
	buf   []byte
	out   []bench.Reply
}

// failoverRetry is how long a client waits before it tries another node
// after an error. It bounds how late the clients see a new leader, so it
// is small against the failover being measured.
const failoverRetry = 5 * time.Millisecond

// pair takes lock name and gives it back; it returns the client address
// of the node that acknowledged the acquire.
func (fc *failoverClient) pair(name int) (string, error) {
	if fc.c == nil {
		c, err := bench.Dial(fc.nodes[fc.cur])
		if err != nil {
			return "", err
		}
		fc.c = c
	}
	key := []byte(lockKey(name))
	r, err := fc.do([]byte("EVALSHA"), acquireSHA, []byte("1"), key, fc.lease, fc.owner)
	if err != nil {
		return "", err
	}
	if !r.Null {
		return "", fmt.Errorf("acquire of %s answered %+v", key, r)
	}
	addr := fc.nodes[fc.cur]
	// A release that fails (the leader died between the two) leaves the
	// lock held by this client with a count above one; its next acquire
	// is reentrant and succeeds all the same.
	_, err = fc.do([]byte("EVALSHA"), releaseSHA, []byte("2"), key, []byte(lockChannel(name)), []byte("0"), fc.lease, fc.owner)
	return addr, err
}

// do runs one command; an error reply is an error, and MOVED points the
// client at the node it names.
func (fc *failoverClient) do(args ...[]byte) (bench.Reply, error) {
	fc.buf = bench.AppendCommand(fc.buf[:0], args...)
	fc.c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := fc.c.Exchange(fc.buf, fc.out[:1]); err != nil {
		return bench.Reply{}, err
	}
	r := fc.out[0]
	if r.Err != "" {
		if f := strings.Fields(r.Err); len(f) == 3 && f[0] == "MOVED" {
			if i := slices.Index(fc.nodes, f[2]); i >= 0 {
				fc.cur = i - 1 // next() moves to it
			}
		}
		return r, errors.New(r.Err)
	}
	return r, nil
}

// next closes the connection and moves to the next node.
func (fc *failoverClient) next() {
	if fc.c != nil {
		fc.c.Close()
		fc.c = nil
	}
	fc.cur = (fc.cur + 1) % len(fc.nodes)
}

// acked is one acknowledged acquire: when and by which node.
type acked struct {
	at   time.Time
	addr string
}

// clientLoad runs o.clients failoverClients until stop is called.
type clientLoad struct {
	stopped atomic.Bool
	wg      sync.WaitGroup
	pairs   atomic.Int64
	errs    atomic.Int64
	// after, once set, asks every client to report its first acquire that
	// is acknowledged after that time by a node other than skip.
	mu    sync.Mutex
	after time.Time
	skip  string
	first []acked // one per client, zero until seen
}

func startClients(t *target, o *options, round int) *clientLoad {
	l := &clientLoad{first: make([]acked, o.clients)}
	var addrs []string
	for _, n := range t.nodes {
		addrs = append(addrs, n.addr)
	}
	for i := 0; i < o.clients; i++ {
		fc := &failoverClient{
			nodes: addrs,
			cur:   slices.Index(addrs, t.addr),
			owner: fmt.Appendf(nil, "8743c9c0-0795-4907-87fd-%012x:%d", i, 1),
			lease: strconv.AppendInt(nil, o.lease.Milliseconds(), 10),
			out:   make([]bench.Reply, 1),
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer func() {
				if fc.c != nil {
					fc.c.Close()
				}
			}()
			r := rand.New(rand.NewPCG(uint64(i), uint64(round)))
			w := workload{name: "spread"}
			for !l.stopped.Load() {
				addr, err := fc.pair(w.pick(i, o, r))
				if err != nil {
					l.errs.Add(1)
					fc.next()
					time.Sleep(failoverRetry)
					continue
				}
				l.pairs.Add(1)
				now := time.Now()
				l.mu.Lock()
				if !l.after.IsZero() && l.first[i].at.IsZero() && addr != l.skip && now.After(l.after) {
					l.first[i] = acked{at: now, addr: addr}
				}
				l.mu.Unlock()
			}
		}()
	}
	return l
}

func (l *clientLoad) watch(after time.Time, skip string) {
	l.mu.Lock()
	l.after, l.skip = after, skip
	l.mu.Unlock()
}

// recovered returns the first and the last of the clients' first acks
// after the kill, and how many clients have one.
func (l *clientLoad) recovered() (first, last acked, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.first {
		if a.at.IsZero() {
			continue
		}
		n++
		if first.at.IsZero() || a.at.Before(first.at) {
			first = a
		}
		if a.at.After(last.at) {
			last = a
		}
	}
	return first, last, n
}

func (l *clientLoad) stop() {
	l.stopped.Store(true)
	l.wg.Wait()
}

// terms returns every node's Raft term (0 for a node that does not answer).
func terms(t *target) []int {
	var out []int
	for _, n := range t.nodes {
		s, err := do(n.addr, "INFO", "replication")
		v := 0
		if err == nil {
			v, _ = strconv.Atoi(infoFields(s)["raft_term"])
		}
		out = append(out, v)
	}
	return out
}

// settle waits until every node names the same leader and has applied what
// the leader had committed when the wait began.
func settle(t *target) error {
	var ps []*proc
	var addrs []string
	for _, n := range t.nodes {
		ps = append(ps, n.proc)
		addrs = append(addrs, n.addr)
	}
	return waitFor(60*time.Second, "a leader every node names, and every node caught up", ps, func() error {
		leader, err := lockkvLeader(addrs)
		if err != nil {
			return err
		}
		s, err := do(leader, "INFO", "replication")
		if err != nil {
			return err
		}
		commit, _ := strconv.Atoi(infoFields(s)["raft_commit_index"])
		for _, a := range addrs {
			s, err := do(a, "INFO", "replication")
			if err != nil {
				return err
			}
			if applied, _ := strconv.Atoi(infoFields(s)["raft_applied_index"]); applied < commit {
				return fmt.Errorf("%s applied %d of %d", a, applied, commit)
			}
		}
		t.addr = leader
		return nil
	})
}

// failover runs the -steady check, then the -failover rounds, on t and
// writes the report to w.
func failover(e *env, t *target, o *options, rounds int, steady time.Duration, w io.Writer) error {
	if t.nodes == nil {
		return fmt.Errorf("%s is not a lockkv cluster", t.name)
	}
	fmt.Fprintf(w, "\nfailover: %s, %d lock clients (spread), retry after an error %v; flags %q\n",
		t.name, o.clients, failoverRetry, strings.Join(o.lockkvFlags, " "))
	if steady > 0 {
		if err := settle(t); err != nil {
			return err
		}
		before := terms(t)
		l := startClients(t, o, 0)
		time.Sleep(steady)
		l.stop()
		after := terms(t)
		elections := slices.Max(after) - slices.Max(before)
		fmt.Fprintf(w, "steady run: %v, %.0f locks/s, %d client errors, Raft term %v -> %v: %d election(s)\n",
			steady, float64(l.pairs.Load())/steady.Seconds(), l.errs.Load(), before, after, elections)
	}
	var firsts, alls []time.Duration
	for r := 1; r <= rounds; r++ {
		if err := settle(t); err != nil {
			return err
		}
		leader := t.addr
		var victim *clusterNode
		for _, n := range t.nodes {
			if n.addr == leader {
				victim = n
			}
		}
		before := slices.Max(terms(t))
		l := startClients(t, o, r)
		time.Sleep(o.warmup)
		if l.pairs.Load() == 0 {
			l.stop()
			return fmt.Errorf("round %d: no lock acknowledged in the %v before the kill", r, o.warmup)
		}
		killed := time.Now()
		l.watch(killed, leader)
		victim.proc.cmd.Process.Kill()
		<-victim.proc.done
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, _, n := l.recovered(); n == o.clients || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		l.stop()
		first, last, n := l.recovered()
		if n == 0 {
			return fmt.Errorf("round %d: no lock acknowledged within 30 s of the kill of %s", r, victim.name)
		}
		after := slices.Max(terms(t))
		fd, ld := first.at.Sub(killed), last.at.Sub(killed)
		firsts, alls = append(firsts, fd), append(alls, ld)
		fmt.Fprintf(w, "round %d: SIGKILL %s; first lock acknowledged after %s by %s, all %d/%d clients after %s; term %d -> %d\n",
			r, victim.name, ms(fd), first.addr, n, o.clients, ms(ld), before, after)
		p, err := e.spawn(victim.name, o.lockkvBin, victim.args...)
		if err != nil {
			return err
		}
		victim.proc = p
	}
	if rounds > 0 {
		fmt.Fprintf(w, "failover over %d rounds: median %s to the first acknowledged lock (min %s, max %s), median %s until every client had one\n",
			rounds, ms(median(firsts)), ms(slices.Min(firsts)), ms(slices.Max(firsts)), ms(median(alls)))
	}
	return nil
}
