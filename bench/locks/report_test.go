package main

import (
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockkv/lockkv/bench"
)

func TestCPUArithmetic(t *testing.T) {
	a := cpuSample{servers: 7500 * time.Millisecond, generator: 2 * time.Second}
	b := cpuSample{servers: 1500 * time.Millisecond, generator: 1200 * time.Millisecond}
	d := a.sub(b)
	if d.servers != 6*time.Second || d.generator != 800*time.Millisecond {
		t.Fatalf("sub = %+v", d)
	}
	r := result{pairs: 40000, elapsed: 4 * time.Second, cpu: d}
	if got := r.cpuPer1k(); math.Abs(got-0.15) > 1e-12 {
		t.Errorf("cpuPer1k = %v, want 0.15 (6 s over 40,000 pairs)", got)
	}
	if got := r.cores(r.cpu.servers); got != 1.5 {
		t.Errorf("server cores = %v, want 1.5", got)
	}
	if got := r.cores(r.cpu.generator); got != 0.2 {
		t.Errorf("generator cores = %v, want 0.2", got)
	}
	if got := (result{}).cpuPer1k(); got != 0 {
		t.Errorf("cpuPer1k of no pairs = %v", got)
	}
}

// TestSummarize: every column is the median of the runs' own figures, so
// the CPU per lock need not be the one of the median-rate run.
func TestSummarize(t *testing.T) {
	run := func(pairs int64, srv time.Duration, p99 time.Duration) result {
		el := 2 * time.Second
		return result{pairs: pairs, elapsed: el, rate: float64(pairs) / el.Seconds(), p99: p99,
			cpu: cpuSample{servers: srv, generator: el / 4}}
	}
	s := summarize([]result{
		run(20000, 1*time.Second, 3*time.Millisecond), // 10,000/s, 0.05 s/1k
		run(10000, 2*time.Second, 9*time.Millisecond), // 5,000/s, 0.2 s/1k
		run(30000, 6*time.Second, 1*time.Millisecond), // 15,000/s, 0.2 s/1k
	})
	if s.rate != 10000 || s.p99 != 3*time.Millisecond {
		t.Errorf("rate %v p99 %v, want 10000 and 3ms", s.rate, s.p99)
	}
	if math.Abs(s.cpuPer1k-0.2) > 1e-12 {
		t.Errorf("cpuPer1k %v, want 0.2 (the median of 0.05, 0.2, 0.2)", s.cpuPer1k)
	}
	if s.srvCores != 1 || s.genCores != 0.25 {
		t.Errorf("cores %v, %v; want 1 and 0.25", s.srvCores, s.genCores)
	}
	if len(s.rates) != 3 || s.rates[0] != 10000 || s.rates[2] != 15000 {
		t.Errorf("rates %v, want the runs' in run order", s.rates)
	}
}

func TestRatioLine(t *testing.T) {
	a := summary{rate: 30000, p99: 2 * time.Millisecond, cpuPer1k: 0.1}
	b := summary{rate: 20000, p99: 3 * time.Millisecond, cpuPer1k: 0.05}
	got := ratio{"lockkv-mem", "redis", 0}.line(a, b)
	for _, want := range []string{"lockkv-mem / redis", "1.50x", "p99   1.50x", "cpu   0.50x"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "goal") {
		t.Errorf("line %q has a goal", got)
	}
	if got := (ratio{"a", "b", 1}).line(a, b); !strings.HasSuffix(got, "goal >= 1.0x: met") {
		t.Errorf("line %q: want the goal met", got)
	}
	if got := (ratio{"a", "b", 2}).line(a, b); !strings.HasSuffix(got, "goal >= 2.0x: NOT met") {
		t.Errorf("line %q: want the goal not met", got)
	}
	// A denominator without a rate is no ratio and meets no goal.
	if got := (ratio{"a", "b", 1}).line(a, summary{}); !strings.Contains(got, "NaNx") || !strings.HasSuffix(got, "NOT met") {
		t.Errorf("line %q: want NaN and NOT met", got)
	}
}

func TestSweepAt(t *testing.T) {
	s := sweep{}
	s.at(50, "spread", "redis").runs = append(s.at(50, "spread", "redis").runs, result{pairs: 1})
	s.at(200, "spread", "redis").failure = "FAILED: x"
	if len(s[50]["spread"]["redis"].runs) != 1 || s[200]["spread"]["redis"].failure != "FAILED: x" || s[50]["spread"]["lockkv-mem"] != nil {
		t.Fatalf("sweep %v", s)
	}
}

func TestConns(t *testing.T) {
	o := options{counts: []int{50, 1000, 200}}
	if o.conns() != 1016 || o.maxClients() != 10000 {
		t.Errorf("spread: conns %d maxclients %d, want 1016 and 10000", o.conns(), o.maxClients())
	}
	o.contended = true
	o.counts = []int{6000}
	if o.conns() != 12016 || o.maxClients() != 12016 {
		t.Errorf("contended 6000: conns %d maxclients %d, want 12016 twice", o.conns(), o.maxClients())
	}
}

// TestSampleCPU reads real processes, stopped (SIGSTOP) after they have
// burnt some CPU so that their CPU time holds still: a target's figure is
// the sum over its processes, those of t.procs and of its cluster nodes.
func TestSampleCPU(t *testing.T) {
	e, err := newEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	var ps []*proc
	for _, name := range []string{"busy-a", "busy-b"} {
		p, err := e.spawn(name, "/bin/sh", "-c", "while :; do :; done")
		if err != nil {
			t.Fatal(err)
		}
		defer p.cmd.Process.Kill()
		ps = append(ps, p)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, p := range ps {
		for {
			cpu, err := bench.ProcessCPU(p.cmd.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			if cpu >= 50*time.Millisecond {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s used %v of CPU in 20 s", p.name, cpu)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	// SIGSTOP takes effect before the process runs again; wait until
	// /proc says so.
	for _, p := range ps {
		for !stopped(t, p.cmd.Process.Pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not stopped", p.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var want time.Duration
	for _, p := range ps {
		cpu, err := bench.ProcessCPU(p.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		want += cpu
	}
	tg := &target{procs: ps[:1], nodes: []*clusterNode{{name: "n1", proc: ps[1]}}}
	s0, err := sampleCPU(tg)
	if err != nil {
		t.Fatal(err)
	}
	if s0.servers != want || s0.generator <= 0 {
		t.Fatalf("sample %+v, want servers %v (the sum) and this process's CPU", s0, want)
	}
	s1, err := sampleCPU(tg)
	if err != nil {
		t.Fatal(err)
	}
	if d := s1.sub(s0); d.servers != 0 || d.generator < 0 {
		t.Fatalf("stopped servers moved: %+v", d)
	}

	// A server that is gone fails the sample, naming it.
	ps[0].cmd.Process.Kill()
	<-ps[0].done
	if _, err := sampleCPU(tg); err == nil || !strings.Contains(err.Error(), "busy-a") {
		t.Fatalf("sample of a dead server: %v", err)
	}
}

// stopped reports whether /proc/PID/stat says the process is stopped (T).
func stopped(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] == "T"
}
