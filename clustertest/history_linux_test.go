package clustertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/redis/go-redis/v9"
)

// historyRecorder collects the operations of every worker.
type historyRecorder struct {
	mu      sync.Mutex
	ops     []porcupine.Operation
	clients int // porcupine client IDs handed out

	definite, unknown, refused int // refused: MOVED/CLUSTERDOWN, never applied
	errSamples                 map[string]int
}

func (r *historyRecorder) newClient() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clients++
	return r.clients
}

// outcome classifies an error: nil (a reply), refused (the command never
// ran: the node could not be reached, or it names the leader or knows
// none), or unknown.
type outcome int

const (
	replied outcome = iota
	refused
	unknownOutcome
)

func classify(err error) (outcome, string) {
	if err == nil || err == redis.Nil {
		return replied, ""
	}
	var oerr *net.OpError
	if errors.As(err, &oerr) && oerr.Op == "dial" {
		return refused, "" // never sent
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		msg := err.Error()
		if strings.HasPrefix(msg, "MOVED ") {
			f := strings.Fields(msg)
			return refused, f[len(f)-1]
		}
		if strings.HasPrefix(msg, "CLUSTERDOWN ") {
			return refused, ""
		}
	}
	return unknownOutcome, ""
}

// historyWorker is one client of the randomized history: it acquires a
// lock, holds it a little, releases it, and follows MOVED to the leader.
type historyWorker struct {
	c       *cluster
	rec     *historyRecorder
	rnd     *rand.Rand
	id      int
	client  int // porcupine client ID; a new one after an unknown outcome
	target  int
	clients []*redis.Client
	seq     int
}

func (w *historyWorker) call(in hInput, f func(ctx context.Context, cl *redis.Client) (hOutput, error)) (hOutput, outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	call := time.Now()
	out, err := f(ctx, w.clients[w.target])
	ret := time.Now()
	o, moved := classify(err)
	in.call = call.UnixMilli()
	in.ret = ret.UnixMilli() + 1
	r := w.rec
	switch o {
	case replied:
		r.mu.Lock()
		r.definite++
		r.ops = append(r.ops, porcupine.Operation{ClientId: w.client, Input: in, Output: out, Call: call.UnixNano(), Return: ret.UnixNano()})
		r.mu.Unlock()
	case refused:
		r.mu.Lock()
		r.refused++
		r.mu.Unlock()
		if i := w.c.nodeByAddr(moved); i >= 0 {
			w.target = i
		} else {
			w.target = w.rnd.Intn(len(w.clients))
			time.Sleep(time.Duration(10+w.rnd.Intn(20)) * time.Millisecond) // no leader known: back off
		}
	case unknownOutcome:
		in.ret = never
		out = hOutput{unknown: true}
		r.mu.Lock()
		r.unknown++
		msg := err.Error()
		if strings.Contains(msg, "i/o timeout") {
			msg = "i/o timeout"
		}
		if len(msg) > 60 {
			msg = msg[:60]
		}
		r.errSamples[msg]++
		// Metadata keeps when the client saw the error, if the error says
		// the server got as far as it could with the op (boundUnknowns).
		var meta interface{}
		if settles(err) {
			meta = ret.UnixNano()
		}
		r.ops = append(r.ops, porcupine.Operation{ClientId: w.client, Input: in, Output: out, Call: call.UnixNano(), Return: never, Metadata: meta})
		r.mu.Unlock()
		w.client = r.newClient()
		w.target = w.rnd.Intn(len(w.clients))
	}
	return out, o
}

func scriptInt(v interface{}, err error) (int64, bool, error) {
	if err == redis.Nil {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, false, fmt.Errorf("script answered %#v", v)
	}
	return n, false, nil
}

func (w *historyWorker) acquire(key, who string, lease int64, spin bool) (hOutput, outcome) {
	if spin {
		return w.call(hInput{op: opSpinAcquire, key: key, owner: who, lease: lease}, func(ctx context.Context, cl *redis.Client) (hOutput, error) {
			ok, err := cl.SetNX(ctx, key, who, time.Duration(lease)*time.Millisecond).Result()
			return hOutput{held: ok}, err
		})
	}
	return w.call(hInput{op: opAcquire, key: key, owner: who, lease: lease}, func(ctx context.Context, cl *redis.Client) (hOutput, error) {
		n, isNil, err := scriptInt(acquireScript.Run(ctx, cl, []string{key}, lease, who).Result())
		return hOutput{held: isNil, pttl: n}, err
	})
}

func (w *historyWorker) release(key, who string, lease int64, spin bool) (hOutput, outcome) {
	if spin {
		return w.call(hInput{op: opSpinRelease, key: key, owner: who, lease: lease}, func(ctx context.Context, cl *redis.Client) (hOutput, error) {
			n, _, err := scriptInt(spinReleaseScript.Run(ctx, cl, []string{key}, who).Result())
			return hOutput{n: n}, err
		})
	}
	return w.call(hInput{op: opRelease, key: key, owner: who, lease: lease}, func(ctx context.Context, cl *redis.Client) (hOutput, error) {
		n, isNil, err := scriptInt(releaseScript.Run(ctx, cl, []string{key, lockChannel(key)}, unlockMessage, lease, who).Result())
		if isNil {
			n = -1
		}
		return hOutput{n: n}, err
	})
}

func (w *historyWorker) get(key string) {
	w.call(hInput{op: opGet, key: key}, func(ctx context.Context, cl *redis.Client) (hOutput, error) {
		v, err := cl.Get(ctx, key).Result()
		return hOutput{val: v}, err
	})
}

const historyLease = 3000 // ms

func (w *historyWorker) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		spin := w.rnd.Intn(2) == 0
		key := fmt.Sprintf("h:lock:%d", w.rnd.Intn(3))
		if spin {
			key = fmt.Sprintf("h:spin:%d", w.rnd.Intn(3))
		}
		w.seq++
		who := fmt.Sprintf("w%d-%d", w.id, w.seq)
		out, o := w.acquire(key, who, historyLease, spin)
		// A refused command never ran: ask the leader it named.
		for tries := 0; o == refused && tries < 3; tries++ {
			out, o = w.acquire(key, who, historyLease, spin)
		}
		switch {
		case o == replied && out.held:
			holds := 1
			if !spin && w.rnd.Intn(3) == 0 { // reentry
				if out, o := w.acquire(key, who, historyLease, spin); o == replied && out.held {
					holds++
				}
			}
			time.Sleep(time.Duration(w.rnd.Intn(60)) * time.Millisecond) // holding the lock
			if spin && w.rnd.Intn(2) == 0 {
				w.get(key)
			}
			for ; holds > 0; holds-- {
				_, o = w.release(key, who, historyLease, spin)
				for tries := 0; o == refused && tries < 3; tries++ {
					_, o = w.release(key, who, historyLease, spin)
				}
				if o != replied {
					break
				}
			}
		case o == unknownOutcome:
			// Perhaps it holds the lock: give it back, as a client would.
			w.release(key, who, historyLease, spin)
		default:
			if spin && w.rnd.Intn(3) == 0 {
				w.get(key)
			}
			time.Sleep(time.Duration(5+w.rnd.Intn(20)) * time.Millisecond) // back off while the lock is busy
		}
	}
}

// TestRandomizedHistory: workers take and give back locks (the reentrant
// lock script with leases; SET NX PX and compare-and-delete) while a
// nemesis kills leaders and followers, cuts them off, and pauses leaders
// (SIGSTOP). The history must be mutually exclusive, lose no acknowledged
// lock, and be linearizable (porcupine).
func TestRandomizedHistory(t *testing.T) {
	dur := 20 * time.Second
	if s := os.Getenv("LOCKKV_HISTORY_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("LOCKKV_HISTORY_SECONDS=%q: %v", s, err)
		}
		dur = time.Duration(n) * time.Second
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("LOCKKV_HISTORY_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (LOCKKV_HISTORY_SEED), %v (LOCKKV_HISTORY_SECONDS)", seed, dur)
	rnd := rand.New(rand.NewSource(seed))

	nodes := 3
	if s := os.Getenv("LOCKKV_HISTORY_NODES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("LOCKKV_HISTORY_NODES=%q: want a node count", s)
		}
		nodes = n
	}
	c := newCluster(t, nodes, snapshotOften)
	c.Leader()
	rec := &historyRecorder{errSamples: map[string]int{}}
	const nWorkers = 8
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := 0; k < nWorkers; k++ {
		w := &historyWorker{c: c, rec: rec, rnd: rand.New(rand.NewSource(rnd.Int63())), id: k, client: rec.newClient()}
		for i := range c.nodes {
			cl := redis.NewClient(&redis.Options{
				Addr: c.nodes[i].clientAddr, MaxRetries: -1, PoolSize: 1,
				DialTimeout: time.Second, ReadTimeout: 1500 * time.Millisecond, WriteTimeout: 1500 * time.Millisecond,
			})
			t.Cleanup(func() { cl.Close() })
			w.clients = append(w.clients, cl)
		}
		w.target = w.rnd.Intn(len(c.nodes))
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(stop)
		}()
	}

	// The nemesis: one fault at a time, with the cluster left to work
	// between faults. The pauses pace the schedule; nothing waits on them.
	var events []string
	pause := func(lo, hi int) { time.Sleep(time.Duration(lo+rnd.Intn(hi-lo)) * time.Millisecond) }
	end := time.Now().Add(dur)
	first, round := rnd.Intn(5), 0 // the faults take turns
	for time.Now().Before(end) {
		pause(700, 1500)
		l, _ := c.leaderNow()
		if l < 0 {
			continue
		}
		round++
		switch (first + round) % 5 {
		case 0:
			events = append(events, "kill leader "+c.nodes[l].id)
			c.Kill(l)
			pause(300, 1500)
			c.Restart(l)
		case 1:
			events = append(events, "cut leader "+c.nodes[l].id)
			c.Partition(l)
			pause(800, 2500)
			c.Heal()
		case 2:
			f := (l + 1 + rnd.Intn(len(c.nodes)-1)) % len(c.nodes)
			events = append(events, "kill follower "+c.nodes[f].id)
			c.Kill(f)
			pause(300, 1500)
			c.Restart(f)
		case 3:
			// A leader that stops and wakes up still believing it leads.
			events = append(events, "pause leader "+c.nodes[l].id)
			c.Pause(l)
			pause(800, 2500)
			c.Resume(l)
		case 4:
			f := (l + 1 + rnd.Intn(len(c.nodes)-1)) % len(c.nodes)
			events = append(events, "cut follower "+c.nodes[f].id)
			c.Partition(f)
			pause(800, 2500)
			c.Heal()
		}
	}
	close(stop)
	wg.Wait()
	c.Heal()
	c.Leader()
	c.waitConverged(30 * time.Second)

	rec.mu.Lock()
	ops := append([]porcupine.Operation(nil), rec.ops...)
	rec.mu.Unlock()
	t.Logf("nemesis: %d faults: %s", len(events), strings.Join(events, ", "))
	var logs []string
	for i := range c.nodes {
		if m, err := c.info(i); err == nil {
			logs = append(logs, fmt.Sprintf("%s snapshot at %s, log from %s to %s", c.nodes[i].id,
				m["raft_last_snapshot_index"], m["raft_first_index"], m["raft_last_log_index"]))
		}
	}
	t.Logf("Raft: %s", strings.Join(logs, "; "))
	t.Logf("history: %d ops answered, %d unknown outcomes (errors, timeouts), %d refused (MOVED, CLUSTERDOWN, connection refused: never ran)", rec.definite, rec.unknown, rec.refused)
	t.Logf("unknown-outcome errors: %v", rec.errSamples)

	bounded := boundUnknowns(ops)
	t.Logf("%d of %d unknown outcomes settled by a later acknowledged write", bounded, rec.unknown)

	grants, violations, lost, problems := checkExclusion(ops)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("mutual exclusion: %d acknowledged grants, %d violations, %d acknowledged locks lost", grants, violations, lost)
	if grants < 50 {
		t.Errorf("only %d locks granted: the history exercised too little", grants)
	}

	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(historyModel(), ops, 90*time.Second)
	t.Logf("linearizability (porcupine): %v in %v", res, time.Since(start).Round(time.Millisecond))
	switch res {
	case porcupine.Illegal:
		path := fmt.Sprintf("%s/history-%d.html", os.TempDir(), seed)
		if f, err := os.Create(path); err == nil {
			porcupine.Visualize(historyModel(), info, f)
			f.Close()
			t.Logf("visualization: %s", path)
		}
		t.Errorf("the history is not linearizable")
		dumpIllegal(t, ops, seed)
	case porcupine.Unknown:
		t.Errorf("porcupine could not decide within its time limit")
	}
	if violations > 0 || lost > 0 {
		t.Errorf("%d mutual exclusion violations, %d lost locks", violations, lost)
	}
}

// checkExclusion checks the answered operations for overlapping holds.
// An owner surely holds a lock from the return of its granted acquire
// until the earlier of its release's call and the acquire's call plus the
// lease (the server set the deadline after the call). Two owners' sure
// holds of one lock must not overlap. A release sent while the lock was
// surely held that finds it not held means a lost lock.
func checkExclusion(ops []porcupine.Operation) (grants, violations, lost int, problems []string) {
	type hold struct {
		owner      string
		start, end int64 // Unix ms
	}
	releases := map[string]hInput{} // key/owner -> first release call
	for _, op := range ops {
		in := op.Input.(hInput)
		if in.op == opRelease || in.op == opSpinRelease {
			k := in.key + "/" + in.owner
			if r, ok := releases[k]; !ok || in.call < r.call {
				releases[k] = in
			}
		}
	}
	holds := map[string][]hold{}
	for _, op := range ops {
		in, out := op.Input.(hInput), op.Output.(hOutput)
		if (in.op != opAcquire && in.op != opSpinAcquire) || out.unknown || !out.held {
			continue
		}
		grants++
		end := in.call + in.lease
		if r, ok := releases[in.key+"/"+in.owner]; ok && r.call < end {
			end = r.call
		}
		holds[in.key] = append(holds[in.key], hold{in.owner, in.ret, end})
	}
	for key, hs := range holds {
		sort.Slice(hs, func(a, b int) bool { return hs[a].start < hs[b].start })
		for i := range hs {
			for j := i + 1; j < len(hs) && hs[j].start < hs[i].end-slack; j++ {
				if hs[j].owner != hs[i].owner && hs[j].end > hs[j].start {
					violations++
					problems = append(problems, fmt.Sprintf("%s: %s holds it over [%d, %d] and %s over [%d, %d]", key, hs[i].owner, hs[i].start, hs[i].end, hs[j].owner, hs[j].start, hs[j].end))
				}
			}
		}
	}
	// Lost: a release that surely came while the lock was held (before the
	// lease could end) answered "not yours".
	acq := map[string]hInput{}
	for _, op := range ops {
		in, out := op.Input.(hInput), op.Output.(hOutput)
		if (in.op == opAcquire || in.op == opSpinAcquire) && !out.unknown && out.held {
			acq[in.key+"/"+in.owner] = in
		}
	}
	for _, op := range ops {
		in, out := op.Input.(hInput), op.Output.(hOutput)
		if out.unknown || (in.op != opRelease && in.op != opSpinRelease) {
			continue
		}
		a, ok := acq[in.key+"/"+in.owner]
		if !ok || in.ret > a.call+a.lease-slack {
			continue
		}
		if (in.op == opRelease && out.n == -1) || (in.op == opSpinRelease && out.n == 0) {
			lost++
			problems = append(problems, fmt.Sprintf("%s: %s's release at %d found it gone; granted at [%d, %d] with a %d ms lease", in.key, in.owner, in.call, a.call, a.ret, a.lease))
		}
	}
	return grants, violations, lost, problems
}

// settles reports whether an error of unknown outcome came after the
// server did all it would ever do with the op: the leader proposed it and
// lost leadership, or the node died (its unproposed requests die with it).
// A client-side timeout does not: the server may still be about to read
// and propose the request.
func settles(err error) bool {
	return strings.Contains(err.Error(), "leadership lost") || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// boundUnknowns gives an op of unknown outcome a return time where Raft
// allows one, if its error settles it (settles). The op's entry, if it
// exists, was proposed by a leader of some term T before the client saw
// the error. Take any write W called
// after that and acknowledged (a state change, so a log entry committed at
// some index j by a leader of term T' >= T). Either that leader's log holds
// the op's entry, below j (a leader appends after its log, and one leader
// orders its own proposals), so committing j applied it first; or it does
// not, and then no later leader's log will: they all hold j, so they agree
// with this one up to j, and an entry of an older term never follows one
// of a newer term. Either way the op took effect before W returned, or
// never, so W's return bounds it. It returns how many ops it bounded.
func boundUnknowns(ops []porcupine.Operation) int {
	type write struct{ call, ret, retMs int64 }
	var ws []write
	for _, op := range ops {
		in, out := op.Input.(hInput), op.Output.(hOutput)
		if out.unknown {
			continue
		}
		switch {
		case (in.op == opAcquire || in.op == opSpinAcquire) && out.held,
			in.op == opRelease && out.n >= 0,
			in.op == opSpinRelease && out.n == 1:
			ws = append(ws, write{op.Call, op.Return, in.ret})
		}
	}
	sort.Slice(ws, func(a, b int) bool { return ws[a].call < ws[b].call })
	// suffix[k]: the earliest return among ws[k:].
	suffix := make([]write, len(ws))
	for k := len(ws) - 1; k >= 0; k-- {
		suffix[k] = ws[k]
		if k+1 < len(ws) && suffix[k+1].ret < suffix[k].ret {
			suffix[k] = suffix[k+1]
		}
	}
	n := 0
	for i := range ops {
		if !ops[i].Output.(hOutput).unknown {
			continue
		}
		errAt, ok := ops[i].Metadata.(int64)
		if !ok {
			continue
		}
		k := sort.Search(len(ws), func(k int) bool { return ws[k].call > errAt })
		if k == len(ws) {
			continue
		}
		in := ops[i].Input.(hInput)
		in.ret = suffix[k].retMs
		ops[i].Input = in
		ops[i].Return = suffix[k].ret
		n++
	}
	return n
}

// dumpIllegal writes, for each key whose history alone is not
// linearizable, its operations in call order to a file.
func dumpIllegal(t *testing.T, ops []porcupine.Operation, seed int64) {
	for _, part := range historyModel().Partition(ops) {
		if porcupine.CheckOperations(historyModel(), part) {
			continue
		}
		sort.Slice(part, func(a, b int) bool { return part[a].Call < part[b].Call })
		var b strings.Builder
		for _, op := range part {
			in := op.Input.(hInput)
			ret := "inf"
			if op.Return != never {
				ret = strconv.FormatInt(op.Return/1e6, 10)
			}
			fmt.Fprintf(&b, "client %d [%d, %s] %s\n", op.ClientId, op.Call/1e6, ret, describeOp(in, op.Output.(hOutput)))
		}
		lo, hi := 1, len(part) // the shortest illegal prefix in call order
		for lo < hi {
			mid := (lo + hi) / 2
			if porcupine.CheckOperations(historyModel(), part[:mid]) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		fmt.Fprintf(&b, "shortest illegal prefix: %d operations\n", lo)
		path := fmt.Sprintf("%s/history-%d-%s.txt", os.TempDir(), seed, part[0].Input.(hInput).key)
		os.WriteFile(path, []byte(b.String()), 0o644)
		t.Logf("%s: not linearizable; its %d operations are in %s", part[0].Input.(hInput).key, len(part), path)
	}
}
