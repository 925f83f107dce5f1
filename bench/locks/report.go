package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sweep is a run's outcome: client count → workload → target.
type sweep map[int]map[string]map[string]*outcome

// outcome is what the runs of one target, workload and client count gave.
type outcome struct {
	runs    []result
	failure string // the last failed run's error
}

// at returns the outcome of target t on workload w at n clients, creating
// it.
func (s sweep) at(n int, w, t string) *outcome {
	if s[n] == nil {
		s[n] = map[string]map[string]*outcome{}
	}
	if s[n][w] == nil {
		s[n][w] = map[string]*outcome{}
	}
	if s[n][w][t] == nil {
		s[n][w][t] = &outcome{}
	}
	return s[n][w][t]
}

// summary is the median of a target's runs: of each figure, the median of
// the runs' figures.
type summary struct {
	rate     float64
	p50, p99 time.Duration
	cpuPer1k float64 // the servers' CPU seconds per 1,000 locks
	srvCores float64 // CPUs the servers kept busy
	genCores float64 // CPUs this load generator kept busy
	retries  int64
	unsynced int64
	rates    []float64 // every run's, in run order
}

func median[T int64 | float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func summarize(rs []result) summary {
	var s summary
	var p50, p99 []time.Duration
	var retries, unsynced []int64
	var cpu, srv, gen []float64
	for _, r := range rs {
		s.rates = append(s.rates, r.rate)
		p50 = append(p50, r.p50)
		p99 = append(p99, r.p99)
		retries = append(retries, r.retries)
		unsynced = append(unsynced, r.unsynced)
		cpu = append(cpu, r.cpuPer1k())
		srv = append(srv, r.cores(r.cpu.servers))
		gen = append(gen, r.cores(r.cpu.generator))
	}
	s.rate, s.p50, s.p99 = median(s.rates), median(p50), median(p99)
	s.cpuPer1k, s.srvCores, s.genCores = median(cpu), median(srv), median(gen)
	s.retries, s.unsynced = median(retries), median(unsynced)
	return s
}

// ratio is one comparison the project sets a goal for (goal 0: none).
type ratio struct {
	num, den string
	goal     float64
}

var ratios = []ratio{
	{"lockkv-3", "redis-wait", 1},
	{"lockkv-3", "etcd-3", 5},
	{"lockkv-3-nosync", "redis-wait", 1},
	{"lockkv-3-nosync", "etcd-3", 5},
	{"lockkv-1", "redis-aof", 0},
	{"lockkv-mem", "redis", 0},
	{"lockkv-mem", "redis-aof", 0},
}

func report(w io.Writer, o *options, ts []*target, works []workload, results sweep,
	status map[string]string, versions string) {
	var counts []string
	for _, n := range o.counts {
		counts = append(counts, strconv.Itoa(n))
	}
	fmt.Fprintf(w, "\nlocks benchmark: %s clients, %v measured after %v warm-up, median of %d run(s); %d CPUs\n",
		strings.Join(counts, ", "), o.duration, o.warmup, o.runs, runtime.NumCPU())
	fmt.Fprintf(w, "versions: %s\n", versions)
	fmt.Fprintf(w, "a pair = acquire + release of one lock. Redis-like targets: Redisson's reentrant lock script by EVALSHA\n"+
		"(lease %v), then its unlock script, which PUBLISHes; etcd: concurrency.Mutex Lock + Unlock on a session (TTL %v).\n",
		o.lease, o.lease)
	fmt.Fprintf(w, "cpu-s/1k: user+system CPU seconds of all the target's server processes (/proc/PID/stat) over the measured\n"+
		"window per 1,000 pairs that ended in it; srv-cores, gen-cores: CPUs the servers and this load generator\n"+
		"(getrusage) kept busy over the window, of the %d. Every column is the median of the runs' figures.\n", runtime.NumCPU())
	fmt.Fprintln(w, "targets:")
	for _, t := range ts {
		fmt.Fprintf(w, "  %-15s %s\n", t.name, t.about)
	}
	const row = "%-15s %10s %10s %10s %9s %9s %9s  %-28s %s\n"
	for _, n := range o.counts {
		oc := *o
		oc.clients = n
		for _, wl := range works {
			fmt.Fprintf(w, "\n%d clients, workload %s: %s\n", n, wl.name, wl.describe(&oc))
			fmt.Fprintf(w, row, "target", "locks/s", "p50", "p99", "cpu-s/1k", "srv-cores", "gen-cores", "runs (locks/s)", "notes")
			sums := map[string]summary{}
			for _, t := range ts {
				out := results[n][wl.name][t.name]
				if out == nil || len(out.runs) == 0 {
					why := status[t.name]
					if out != nil && out.failure != "" {
						why = out.failure
					}
					if why == "" {
						why = "no result"
					}
					fmt.Fprintf(w, row, t.name, "-", "-", "-", "-", "-", "-", "", firstLine(why))
					continue
				}
				s := summarize(out.runs)
				sums[t.name] = s
				var runs []string
				for _, r := range s.rates {
					runs = append(runs, fmt.Sprintf("%.0f", r))
				}
				var notes []string
				if wl.shared > 0 && !t.etcd() {
					notes = append(notes, fmt.Sprintf("%d acquires found the lock held", s.retries))
				}
				if t.wait {
					notes = append(notes, fmt.Sprintf("%d WAIT 1 answered 0", s.unsynced))
				}
				if len(out.runs) < o.runs {
					notes = append(notes, fmt.Sprintf("only %d of %d runs (%s)", len(out.runs), o.runs, firstLine(out.failure)))
				}
				fmt.Fprintf(w, row, t.name, fmt.Sprintf("%.0f", s.rate), ms(s.p50), ms(s.p99),
					fmt.Sprintf("%.4f", s.cpuPer1k), fmt.Sprintf("%.2f", s.srvCores), fmt.Sprintf("%.2f", s.genCores),
					strings.Join(runs, " "), strings.Join(notes, "; "))
			}
			fmt.Fprintln(w, "ratios (locks/s; p99 and cpu-s/1k of the denominator over the numerator's: above 1 is better for all):")
			for _, r := range ratios {
				a, okA := sums[r.num]
				b, okB := sums[r.den]
				if !okA || !okB {
					continue
				}
				fmt.Fprintf(w, "  %s\n", r.line(a, b))
			}
		}
	}
}

// line is the ratio's line of a table: numerator over denominator in
// locks/s, the denominator's p99 and CPU per lock over the numerator's,
// and the goal's verdict.
func (r ratio) line(a, b summary) string {
	x := quotient(a.rate, b.rate)
	goal := ""
	if r.goal > 0 {
		verdict := "met"
		if !(x >= r.goal) {
			verdict = "NOT met"
		}
		goal = fmt.Sprintf("   goal >= %.1fx: %s", r.goal, verdict)
	}
	return fmt.Sprintf("%-30s %6.2fx   p99 %6.2fx   cpu %6.2fx%s", r.num+" / "+r.den, x,
		quotient(float64(b.p99), float64(a.p99)), quotient(b.cpuPer1k, a.cpuPer1k), goal)
}

// quotient is a/b, NaN where b is 0 (printed as NaN, never as a ratio).
func quotient(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
