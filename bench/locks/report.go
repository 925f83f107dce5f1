package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// summary is the median of a target's runs.
type summary struct {
	rate     float64
	p50, p99 time.Duration
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
	for _, r := range rs {
		s.rates = append(s.rates, r.rate)
		p50 = append(p50, r.p50)
		p99 = append(p99, r.p99)
		retries = append(retries, r.retries)
		unsynced = append(unsynced, r.unsynced)
	}
	s.rate, s.p50, s.p99 = median(s.rates), median(p50), median(p99)
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
	{"lockkv-mem", "redis-aof", 0},
}

func report(w io.Writer, o *options, ts []*target, works []workload, results map[string]map[string][]result,
	status map[string]string, versions string) {
	fmt.Fprintf(w, "\nlocks benchmark: %d clients, %v measured after %v warm-up, median of %d run(s); %d CPUs\n",
		o.clients, o.duration, o.warmup, o.runs, runtime.NumCPU())
	fmt.Fprintf(w, "versions: %s\n", versions)
	fmt.Fprintf(w, "a pair = acquire + release of one lock. Redis-like targets: Redisson's reentrant lock script by EVALSHA\n"+
		"(lease %v), then its unlock script, which PUBLISHes; etcd: concurrency.Mutex Lock + Unlock on a session (TTL %v).\n",
		o.lease, o.lease)
	fmt.Fprintln(w, "targets:")
	for _, t := range ts {
		fmt.Fprintf(w, "  %-15s %s\n", t.name, t.about)
	}
	for _, wl := range works {
		fmt.Fprintf(w, "\nworkload %s: %s\n", wl.name, wl.describe(o))
		fmt.Fprintf(w, "%-15s %10s %10s %10s  %-28s %s\n", "target", "locks/s", "p50", "p99", "runs (locks/s)", "notes")
		sums := map[string]summary{}
		for _, t := range ts {
			rs := results[wl.name][t.name]
			if len(rs) == 0 {
				why := status[t.name]
				if why == "" {
					why = "no result"
				}
				fmt.Fprintf(w, "%-15s %10s %10s %10s  %-28s %s\n", t.name, "-", "-", "-", "", firstLine(why))
				continue
			}
			s := summarize(rs)
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
			if len(rs) < o.runs {
				notes = append(notes, fmt.Sprintf("only %d of %d runs", len(rs), o.runs))
			}
			fmt.Fprintf(w, "%-15s %10.0f %10s %10s  %-28s %s\n", t.name, s.rate, ms(s.p50), ms(s.p99),
				strings.Join(runs, " "), strings.Join(notes, "; "))
		}
		fmt.Fprintln(w, "ratios (locks/s, and p99 of the denominator over the numerator's: above 1 is better for both):")
		for _, r := range ratios {
			a, okA := sums[r.num]
			b, okB := sums[r.den]
			if !okA || !okB || b.rate == 0 || a.p99 == 0 {
				continue
			}
			x := a.rate / b.rate
			goal := ""
			if r.goal > 0 {
				verdict := "met"
				if x < r.goal {
					verdict = "NOT met"
				}
				goal = fmt.Sprintf("goal >= %.1fx: %s", r.goal, verdict)
			}
			fmt.Fprintf(w, "  %-30s %6.2fx   p99 %6.2fx   %s\n", r.num+" / "+r.den, x, float64(b.p99)/float64(a.p99), goal)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
