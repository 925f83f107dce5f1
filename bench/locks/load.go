package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/bench"
	"github.com/lockkv/lockkv/lockscripts"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// workload says which lock names the clients draw from.
type workload struct {
	name string
	// shared is the number of names every client draws from; 0 means
	// "spread": client i owns the names i, i+clients, i+2*clients, ... of
	// o.names, so no two clients ever want the same lock.
	shared int
}

func (w workload) describe(o *options) string {
	if w.shared == 0 {
		return fmt.Sprintf("%d lock names, each client on its own %d or so (no contention)", o.names, o.names/o.clients)
	}
	return fmt.Sprintf("%d lock names shared by all clients (contended: a client that finds its lock held waits for the release's PUBLISH)", w.shared)
}

// pick returns the lock name client i uses next.
func (w workload) pick(i int, o *options, r *rand.Rand) int {
	if w.shared > 0 {
		return r.IntN(w.shared)
	}
	own := (o.names - i + o.clients - 1) / o.clients
	return i + r.IntN(own)*o.clients
}

// worker is one client: pair acquires and then releases one lock.
type worker interface {
	// pair takes lock name and gives it back. retries counts the acquire
	// attempts that found the lock held; unsynced counts WAIT replies below
	// 1 (the replica did not confirm in time).
	pair(name int) (retries, unsynced int, err error)
	close()
}

// result is one measured run of one target.
type result struct {
	pairs    int64
	elapsed  time.Duration
	rate     float64 // pairs per second
	p50, p99 time.Duration
	retries  int64
	unsynced int64
	cpu      cpuSample // used over the measured window
}

// cpuPer1k is the CPU seconds the target's servers used per 1,000 locks
// (acquire+release pairs) of the run.
func (r result) cpuPer1k() float64 {
	if r.pairs == 0 {
		return 0
	}
	return r.cpu.servers.Seconds() * 1000 / float64(r.pairs)
}

// cores is how many CPUs cpu kept busy on average over the run's window.
func (r result) cores(cpu time.Duration) float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return cpu.Seconds() / r.elapsed.Seconds()
}

// cpuSample is the CPU time (user+system) used so far by a target's server
// processes, all together, and by this load generator; the difference of
// two samples is what each used between them.
type cpuSample struct {
	servers, generator time.Duration
}

func (a cpuSample) sub(b cpuSample) cpuSample {
	return cpuSample{servers: a.servers - b.servers, generator: a.generator - b.generator}
}

// sampleCPU reads the CPU time of every server process of t
// (/proc/PID/stat) and of this process (getrusage).
func sampleCPU(t *target) (cpuSample, error) {
	var s cpuSample
	for _, p := range t.servers() {
		cpu, err := bench.ProcessCPU(p.cmd.Process.Pid)
		if err != nil {
			return s, fmt.Errorf("CPU time of %s: %w", p.name, err)
		}
		s.servers += cpu
	}
	var err error
	s.generator, err = bench.SelfCPU()
	return s, err
}

// measure runs o.clients workers on t for o.warmup, then counts the pairs
// that end within the next o.duration, and the CPU time the target's
// servers and this process use meanwhile.
func measure(t *target, w workload, o *options, run int) (result, error) {
	workers := make([]worker, o.clients)
	closeAll := func() {
		var wg sync.WaitGroup
		for _, wk := range workers {
			if wk != nil {
				wg.Add(1)
				go func() { defer wg.Done(); wk.close() }()
			}
		}
		wg.Wait()
	}
	// etcd's clients share one clientv3.Client (one gRPC connection per
	// endpoint, as an application holds one): faster for etcd here than a
	// client each. Every worker has its own session (lease).
	var cli *clientv3.Client
	if t.etcd() {
		var err error
		if cli, err = newEtcdClient(t.endpoints); err != nil {
			return result{}, err
		}
		defer cli.Close() // after closeAll
	}
	defer closeAll()
	// Connect in parallel: an etcd session takes a round trip or two.
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		connErr error
	)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var wk worker
			var err error
			if cli != nil {
				wk, err = newEtcdWorker(cli, o)
			} else {
				wk, err = newRespWorker(t, w, o, i)
			}
			if err != nil {
				errOnce.Do(func() { connErr = err })
				return
			}
			workers[i] = wk
		}()
	}
	wg.Wait()
	if connErr != nil {
		return result{}, fmt.Errorf("connect: %w", connErr)
	}

	const (
		warming = iota
		measuring
		stopped
	)
	var (
		phase    atomic.Int32
		retries  atomic.Int64
		unsynced atomic.Int64
		firstErr error
		failed   = make(chan struct{})
		lats     = make([][]time.Duration, o.clients)
	)
	for i, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), uint64(run)))
			lat := make([]time.Duration, 0, 1<<10) // grows; 1,000 clients stay small
			for phase.Load() < stopped {
				name := w.pick(i, o, r)
				t0 := time.Now()
				re, un, err := wk.pair(name)
				d := time.Since(t0)
				if err != nil {
					if phase.Load() < stopped {
						errOnce.Do(func() {
							firstErr = fmt.Errorf("client %d, lock %d: %w", i, name, err)
							close(failed)
						})
					}
					return
				}
				// A pair counts if it ends in the window, whenever it
				// began: the pairs the window completed, which the
				// servers' CPU over the window paid for. Counting only
				// pairs that also began in it would lose about one
				// pair per client, hundreds at 1,000 clients.
				if phase.Load() == measuring {
					lat = append(lat, d)
					retries.Add(int64(re))
					unsynced.Add(int64(un))
				}
			}
			lats[i] = lat
		}()
	}
	sleep := func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-failed:
			return false
		}
	}
	var (
		start, end time.Time
		cpu0, cpu1 cpuSample
		cpuErr     error
	)
	if sleep(o.warmup) {
		cpu0, cpuErr = sampleCPU(t)
		start = time.Now()
		phase.Store(measuring)
		profiled := profile(t, w, o, run)
		sleep(o.duration)
		phase.Store(stopped)
		end = time.Now()
		if cpuErr == nil {
			cpu1, cpuErr = sampleCPU(t)
		}
		profiled()
	}
	phase.Store(stopped)
	// A worker blocked on a dead server returns at its deadline; closing
	// the connections makes it return now.
	select {
	case <-failed:
		closeAll()
	default:
	}
	wg.Wait()
	if firstErr != nil {
		return result{}, firstErr
	}
	if cpuErr != nil {
		return result{}, cpuErr
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	slices.Sort(all)
	res := result{pairs: int64(len(all)), elapsed: end.Sub(start), retries: retries.Load(), unsynced: unsynced.Load(),
		cpu: cpu1.sub(cpu0)}
	res.rate = float64(res.pairs) / res.elapsed.Seconds()
	if len(all) > 0 {
		res.p50 = all[len(all)/2]
		res.p99 = all[len(all)*99/100]
	}
	return res, nil
}

// profile starts a CPU profile of every lockkv process of t lasting the
// measured window (-profile) and returns a function that waits for them and
// writes <target>-<workload>-<run>-<i>.pprof into o.profileDir.
func profile(t *target, w workload, o *options, run int) (wait func()) {
	var wg sync.WaitGroup
	for i, a := range t.pprof {
		wg.Add(1)
		go func() {
			defer wg.Done()
			secs := max(1, int(o.duration/time.Second))
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", a, secs))
			if err != nil {
				fmt.Fprintf(os.Stderr, "profile %s: %v\n", a, err)
				return
			}
			defer resp.Body.Close()
			name := filepath.Join(o.profileDir, fmt.Sprintf("%s-%s-%d-%d.pprof", t.name, w.name, run, i))
			f, err := os.Create(name)
			if err == nil {
				_, err = io.Copy(f, resp.Body)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "profile %s: %v\n", a, err)
			}
		}()
	}
	return wg.Wait
}

func sha1hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

var (
	acquireSHA = []byte(sha1hex(lockscripts.Acquire))
	releaseSHA = []byte(sha1hex(lockscripts.Release))
)

// respWorker is a Redisson-like client of a RESP target: the reentrant
// lock's acquire script by EVALSHA with the lease, then its release script,
// which publishes on the lock's channel. With t.wait each script is
// pipelined with WAIT 1 <timeout>, as Redisson batches them when the master
// has replicas.
type respWorker struct {
	c      *bench.Client
	owner  []byte
	lease  []byte
	wait   bool
	waitMs []byte
	buf    []byte
	out    []bench.Reply

	// Contended workloads only: a subscriber connection on every lock's
	// channel and, per lock, a signal that a release was published.
	sub    *bench.Client
	notify []chan struct{}
}

func lockKey(name int) string { return "lock:" + strconv.Itoa(name) }

func lockChannel(name int) string { return "redisson_lock__channel:{" + lockKey(name) + "}" }

func newRespWorker(t *target, w workload, o *options, i int) (*respWorker, error) {
	c, err := bench.Dial(t.addr)
	if err != nil {
		return nil, err
	}
	wk := &respWorker{
		c:      c,
		owner:  fmt.Appendf(nil, "8743c9c0-0795-4907-87fd-%012x:%d", i, 1),
		lease:  strconv.AppendInt(nil, o.lease.Milliseconds(), 10),
		wait:   t.wait,
		waitMs: strconv.AppendInt(nil, o.waitTimeout.Milliseconds(), 10),
		out:    make([]bench.Reply, 2),
	}
	if w.shared == 0 {
		return wk, nil
	}
	sub, err := bench.Dial(t.addr)
	if err != nil {
		c.Close()
		return nil, err
	}
	wk.sub = sub
	args := [][]byte{[]byte("SUBSCRIBE")}
	byChannel := map[string]int{}
	for n := 0; n < w.shared; n++ {
		args = append(args, []byte(lockChannel(n)))
		byChannel[lockChannel(n)] = n
		wk.notify = append(wk.notify, make(chan struct{}, 1))
	}
	sub.SetDeadline(time.Now().Add(10 * time.Second))
	if err := sub.Exchange(bench.AppendCommand(nil, args...), nil); err != nil {
		wk.close()
		return nil, err
	}
	for n := 0; n < w.shared; n++ {
		if m, err := sub.ReadStrings(); err != nil || len(m) != 3 || m[0] != "subscribe" {
			wk.close()
			return nil, fmt.Errorf("SUBSCRIBE: %q, %v", m, err)
		}
	}
	sub.SetDeadline(time.Time{})
	go func() {
		for {
			m, err := sub.ReadStrings()
			if err != nil {
				return
			}
			if len(m) == 3 && m[0] == "message" {
				if n, ok := byChannel[m[1]]; ok {
					select {
					case wk.notify[n] <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	return wk, nil
}

func (wk *respWorker) close() {
	wk.c.Close()
	if wk.sub != nil {
		wk.sub.Close()
	}
}

// script runs one lock script (and WAIT) and returns the script's reply.
func (wk *respWorker) script(unsynced *int, args ...[]byte) (bench.Reply, error) {
	wk.buf = bench.AppendCommand(wk.buf[:0], args...)
	out := wk.out[:1]
	if wk.wait {
		wk.buf = bench.AppendCommand(wk.buf, []byte("WAIT"), []byte("1"), wk.waitMs)
		out = wk.out[:2]
	}
	wk.c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := wk.c.Exchange(wk.buf, out); err != nil {
		return bench.Reply{}, err
	}
	if out[0].Err != "" {
		return out[0], fmt.Errorf("%s: -%s", args[0], out[0].Err)
	}
	if wk.wait {
		if out[1].Kind != ':' {
			return out[0], fmt.Errorf("WAIT answered %+v", out[1])
		}
		if out[1].Int < 1 {
			*unsynced++
		}
	}
	return out[0], nil
}

func (wk *respWorker) pair(name int) (retries, unsynced int, err error) {
	key := []byte(lockKey(name))
	for {
		if wk.notify != nil {
			select { // a release seen before this attempt is stale
			case <-wk.notify[name]:
			default:
			}
		}
		r, err := wk.script(&unsynced, []byte("EVALSHA"), acquireSHA, []byte("1"), key, wk.lease, wk.owner)
		if err != nil {
			return retries, unsynced, err
		}
		if r.Null {
			break
		}
		if r.Kind != ':' {
			return retries, unsynced, fmt.Errorf("acquire answered %+v", r)
		}
		retries++
		if wk.notify == nil {
			return retries, unsynced, fmt.Errorf("lock %s is held by another client (pttl %d) in a workload without contention", key, r.Int)
		}
		// Wait for the release's message, as Redisson does; its lease
		// bounds the wait, and a lost message costs at most a second.
		wait := min(time.Duration(r.Int)*time.Millisecond, time.Second)
		select {
		case <-wk.notify[name]:
		case <-time.After(max(wait, time.Millisecond)):
		}
	}
	r, err := wk.script(&unsynced, []byte("EVALSHA"), releaseSHA, []byte("2"), key, []byte(lockChannel(name)),
		[]byte("0"), wk.lease, wk.owner)
	if err != nil {
		return retries, unsynced, err
	}
	if r.Kind != ':' || r.Int != 1 {
		return retries, unsynced, fmt.Errorf("release answered %+v, want 1", r)
	}
	return retries, unsynced, nil
}

// etcdWorker is the standard etcd lock recipe: a session (a lease of
// o.lease kept alive) and concurrency.Mutex Lock then Unlock.
type etcdWorker struct {
	sess *concurrency.Session
}

func newEtcdClient(endpoints []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
}

func newEtcdWorker(cli *clientv3.Client, o *options) (*etcdWorker, error) {
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(int(o.lease.Seconds())))
	if err != nil {
		return nil, err
	}
	return &etcdWorker{sess: sess}, nil
}

func (wk *etcdWorker) close() { wk.sess.Close() }

func (wk *etcdWorker) pair(name int) (retries, unsynced int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m := concurrency.NewMutex(wk.sess, "/lockkv-bench/"+lockKey(name))
	if err := m.Lock(ctx); err != nil {
		return 0, 0, fmt.Errorf("Lock: %w", err)
	}
	if err := m.Unlock(ctx); err != nil {
		return 0, 0, fmt.Errorf("Unlock: %w", err)
	}
	return 0, 0, nil
}
