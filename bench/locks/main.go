// Command locks is the replicated-lock benchmark: it starts, on this
// machine and in one run, lockkv (one node in memory, one durable node, a
// 3-node Raft cluster), redis-server without persistence, redis-server
// with appendfsync always, a redis-server primary with one replica where
// every lock script is followed by WAIT 1, and a 3-node etcd cluster;
// drives each with the same number of clients taking and releasing locks
// (at each client count of a -clients list); and prints locks/s, the
// latency of an acquire+release pair and the CPU time the target's servers
// spent per 1,000 locks side by side, with the ratios the project aims at.
//
// It is a module of its own (bench/locks/go.mod) so that the etcd client
// stays out of lockkv's dependencies:
//
//	cd bench/locks && go run .                        # every target, 10 s each
//	go run -C bench/locks . -runs 3                   # from the repository root
//	go run -C bench/locks . -targets lockkv-3,redis-wait -workloads spread,contended
//	go run -C bench/locks . -targets lockkv-mem,redis -clients 50,200,1000
//	go run -C bench/locks . -failover 10 -clients 20      # leader SIGKILL to the next acknowledged lock
//	go run -C bench/locks . -steady 10m -clients 20       # elections in a run where nothing fails
//
// Every server runs in a temporary directory that is removed at exit; the
// servers get SIGKILL from the kernel if this program dies (Pdeathsig, on
// Linux).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lockkv/lockkv/bench"
)

// options are the command line's settings.
type options struct {
	duration    time.Duration
	warmup      time.Duration
	runs        int
	clients     int   // clients of the measurement at hand (failover: the one count)
	counts      []int // -clients: every count to measure
	contended   bool  // a contended workload runs: every client has a subscriber connection too
	names       int
	lease       time.Duration
	waitTimeout time.Duration
	lockkvBin   string
	redisBin    string
	etcdBin     string
	profileDir  string
	lockkvFlags []string // extra flags for every node of lockkv-3 and lockkv-3-nosync
}

func main() {
	os.Exit(run())
}

func run() int {
	var (
		o         options
		targetArg = flag.String("targets", "all", "comma-separated targets to run (all: "+strings.Join(targetNames(), ",")+")")
		workArg   = flag.String("workloads", "spread", "comma-separated workloads: spread (each client on its own lock names), contended (all clients on -contended-names names)")
		contended = flag.Int("contended-names", 10, "lock names of the contended workload")
		repo      = flag.String("repo", "", "lockkv checkout to build cmd/lockkv from (default: found above the working directory)")
		rounds    = flag.Int("failover", 0, "instead of the table: kill the leader of the cluster target (default lockkv-3) this many times under -clients lock clients and report the time to the first lock a survivor acknowledges")
		steady    = flag.Duration("steady", 0, "run the lock clients this long on the cluster target without a kill (before any -failover rounds) and report the elections (Raft term changes) meanwhile")
		flags     = flag.String("lockkv-flags", "", "space-separated extra flags for every node of lockkv-3 and lockkv-3-nosync (e.g. \"--raft-heartbeat-timeout 500ms\")")
		clients   = flag.String("clients", "50", "concurrent clients, each with its own connection: a number, or a comma-separated list (e.g. 50,200,1000) that measures every target and workload at each count in one run (-failover and -steady take one number)")
	)
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per target and run")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before each measurement")
	flag.IntVar(&o.runs, "runs", 1, "runs per target and workload (the median is reported)")
	flag.IntVar(&o.names, "names", 1000, "lock names of the spread workload")
	flag.DurationVar(&o.lease, "lease", 30*time.Second, "lock lease (Redisson's watchdog default; etcd: the session's TTL)")
	flag.DurationVar(&o.waitTimeout, "wait-timeout", time.Second, "WAIT timeout of redis-wait (Redisson's slavesSyncTimeout)")
	flag.StringVar(&o.lockkvBin, "lockkv-bin", "", "lockkv binary (default: go build ./cmd/lockkv of the checkout)")
	flag.StringVar(&o.redisBin, "redis-server", "redis-server", "redis-server binary")
	flag.StringVar(&o.etcdBin, "etcd", "etcd", "etcd binary")
	flag.StringVar(&o.profileDir, "profile", "", "directory for CPU profiles of every lockkv process over each measured window (lockkv's --pprof-addr)")
	flag.Parse()

	o.lockkvFlags = strings.Fields(*flags)
	var err error
	if o.counts, err = bench.ParseCounts(*clients); err != nil {
		fmt.Fprintf(os.Stderr, "-clients: %v\n", err)
		return 2
	}
	o.clients = o.counts[0]
	failoverMode := *rounds > 0 || *steady > 0
	if failoverMode && len(o.counts) > 1 {
		fmt.Fprintf(os.Stderr, "-failover and -steady take one client count, not the list -clients %s\n", *clients)
		return 2
	}
	if failoverMode && *targetArg == "all" {
		*targetArg = "lockkv-3"
	}
	selected, err := selectTargets(*targetArg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if failoverMode && (len(selected) != 1 || !strings.HasPrefix(selected[0].name, "lockkv-3")) {
		fmt.Fprintln(os.Stderr, "-failover and -steady take one cluster target: -targets lockkv-3 or lockkv-3-nosync")
		return 2
	}
	var works []workload
	for _, w := range strings.Split(*workArg, ",") {
		switch strings.TrimSpace(w) {
		case "spread":
			works = append(works, workload{name: "spread"})
		case "contended":
			works = append(works, workload{name: "contended", shared: *contended})
			o.contended = true
		default:
			fmt.Fprintf(os.Stderr, "unknown workload %q (spread, contended)\n", w)
			return 2
		}
	}
	if o.names < slices.Max(o.counts) || *contended < 1 || o.runs < 1 || o.lease < time.Second {
		fmt.Fprintln(os.Stderr, "need -names >= every -clients count, -contended-names >= 1, -runs >= 1, -lease >= 1s")
		return 2
	}
	// Set before any server starts: they inherit it.
	if err := bench.RaiseOpenFiles(o.conns() + 256); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	e, err := newEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.close()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "\n%v: stopping the servers and removing %s\n", s, e.dir)
		e.close()
		os.Exit(130)
	}()

	rev := ""
	if o.lockkvBin == "" && needsLockkv(selected) {
		root := *repo
		if root == "" {
			if root, err = findRepo(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Fprintf(os.Stderr, "building cmd/lockkv of %s\n", root)
		if o.lockkvBin, err = e.buildLockkv(root); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%h %cs").Output(); err == nil {
			rev = strings.TrimSpace(string(out))
		}
	}

	if failoverMode {
		t := selected[0]
		fmt.Fprintf(os.Stderr, "starting %s: %s\n", t.name, t.about)
		if err := t.start(e, &o, t); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", t.name, err)
			return 1
		}
		if err := failover(e, t, &o, *rounds, *steady, os.Stdout); err != nil {
			if e.closing() {
				return 130
			}
			fmt.Fprintf(os.Stderr, "failover: %v\n", err)
			return 1
		}
		return 0
	}

	// Start every target first; one that cannot start is reported and left
	// out, the others run.
	status := map[string]string{}
	var active []*target
	failed := false
	for _, t := range selected {
		fmt.Fprintf(os.Stderr, "starting %s: %s\n", t.name, t.about)
		if err := t.start(e, &o, t); err != nil {
			if s, ok := err.(skipError); ok {
				status[t.name] = "SKIPPED: " + s.why
				fmt.Fprintf(os.Stderr, "\n!!! SKIPPED %s: %s\n\n", t.name, s.why)
				continue
			}
			failed = true
			status[t.name] = "FAILED to start: " + err.Error()
			fmt.Fprintf(os.Stderr, "\n!!! FAILED %s: %v\n\n", t.name, err)
			continue
		}
		active = append(active, t)
	}

	results := sweep{}
	for _, n := range o.counts {
		oc := o
		oc.clients = n
		for _, w := range works {
			for r := 0; r < o.runs; r++ {
				// Rotate the order so that no target always runs first or
				// last on a machine whose load drifts.
				for j := range active {
					t := active[(j+r)%len(active)]
					res, err := measure(t, w, &oc, r)
					if err != nil && e.closing() {
						return 130
					}
					out := results.at(n, w.name, t.name)
					if err != nil {
						failed = true
						out.failure = "FAILED: " + err.Error()
						fmt.Fprintf(os.Stderr, "!!! %s %s %d clients run %d: %v\n", t.name, w.name, n, r+1, err)
						continue
					}
					fmt.Fprintf(os.Stderr, "%-15s %-9s %5d clients run %d/%d: %8.0f locks/s  p50 %s  p99 %s  %.4f cpu-s/1k locks\n",
						t.name, w.name, n, r+1, o.runs, res.rate, ms(res.p50), ms(res.p99), res.cpuPer1k())
					out.runs = append(out.runs, res)
				}
			}
		}
	}

	report(os.Stdout, &o, selected, works, results, status, versions(&o, rev, selected))
	if failed {
		return 1
	}
	return 0
}

// conns is how many connections a RESP server gets at most in this run:
// one per client, two with a contended workload (the subscriber), and a
// few of the benchmark's own.
func (o *options) conns() int {
	n := slices.Max(o.counts)
	if o.contended {
		n *= 2
	}
	return n + 16
}

// maxClients is the maxclients every RESP server starts with: Redis's
// default, or more when this run needs more.
func (o *options) maxClients() int { return max(10000, o.conns()) }

func targetNames() []string {
	var out []string
	for _, t := range targets() {
		out = append(out, t.name)
	}
	return out
}

func selectTargets(arg string) ([]*target, error) {
	all := targets()
	if arg == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(arg, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(targetNames(), n) {
			return nil, fmt.Errorf("unknown target %q; targets: %s", n, strings.Join(targetNames(), ","))
		}
		want[n] = true
	}
	var out []*target
	for _, t := range all {
		if want[t.name] {
			out = append(out, t)
		}
	}
	return out, nil
}

func needsLockkv(ts []*target) bool {
	for _, t := range ts {
		if strings.HasPrefix(t.name, "lockkv") {
			return true
		}
	}
	return false
}

func versions(o *options, rev string, ts []*target) string {
	var vs []string
	if rev != "" {
		vs = append(vs, "lockkv "+rev)
	}
	for _, t := range ts {
		if strings.HasPrefix(t.name, "redis") {
			vs = append(vs, version(o.redisBin, "--version"))
			break
		}
	}
	for _, t := range ts {
		if t.name == "etcd-3" {
			if _, err := exec.LookPath(o.etcdBin); err == nil {
				vs = append(vs, version(o.etcdBin, "--version"))
			}
		}
	}
	vs = append(vs, runtime.Version())
	return strings.Join(vs, "; ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
