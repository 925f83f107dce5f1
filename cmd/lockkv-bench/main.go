// Command lockkv-bench starts lockkv and redis-server on this machine and
// drives both with the same client load in one run, printing throughput,
// latency (p50, p99, the slowest round trip), each server's CPU time per
// operation and the ratios lockkv/Redis per workload, then the memory
// each needs for a million small lock hashes.
//
//	go run ./cmd/lockkv-bench                     # all workloads, 3 runs each
//	go run ./cmd/lockkv-bench -duration 2s -runs 5 -workloads SET,GET
//	go run ./cmd/lockkv-bench -memory-keys 1000000 -workloads none
//	go run ./cmd/lockkv-bench -workloads EVALSHA -conns 50,200 -memory-keys 0
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/bench"
	"github.com/lockkv/lockkv/internal/testutil"
)

const serveEnv = "LOCKKV_BENCH_SERVE"

func main() {
	if addr := os.Getenv(serveEnv); addr != "" {
		serve(addr)
		return
	}
	var (
		duration   = flag.Duration("duration", 2*time.Second, "measuring time per run")
		runs       = flag.Int("runs", 3, "runs per workload and server (the median is reported)")
		connsArg   = flag.String("conns", "50", "client connections: a number or a comma-separated list swept in one run (e.g. 50,200)")
		pipelines  = flag.String("pipelines", "1,16", "pipeline depths to measure")
		workloads  = flag.String("workloads", "all", "comma-separated workload names, all, or none")
		memKeys    = flag.Int("memory-keys", 1000000, "lock hashes for the memory measurement (0 skips it)")
		redisBin   = flag.String("redis-server", "redis-server", "redis-server binary")
		lockkvAddr = flag.String("lockkv-addr", "", "measure this lockkv instead of starting one")
		redisAddr  = flag.String("redis-addr", "", "measure this Redis instead of starting one")
		lockkvBin  = flag.String("lockkv-bin", "", "run this lockkv binary (cmd/lockkv) as the lockkv server instead of this program's own lockkv")
		variants   variantFlag
	)
	flag.Var(&variants, "variant", "measure this lockkv binary too, as \"name=path [ENV=VALUE ...]\" (repeatable; replaces the default lockkv; each row's runs alternate between all the servers)")
	flag.Parse()
	conns, err := bench.ParseCounts(*connsArg)
	if err != nil {
		log.Fatalf("-conns: %v", err)
	}
	depths, err := bench.ParseCounts(*pipelines)
	if err != nil {
		log.Fatalf("-pipelines: %v", err)
	}
	// Every connection is a descriptor here and in the server; leave room
	// for the servers' own files.
	if err := bench.RaiseOpenFiles(slices.Max(conns) + 64); err != nil {
		log.Fatal(err)
	}

	servers := []*server{{name: "lockkv", addr: *lockkvAddr, bin: *lockkvBin}}
	if len(variants) > 0 {
		servers = variants
	}
	redis := &server{name: "redis", addr: *redisAddr}
	servers = append(servers, redis)
	fatalf = func(format string, args ...any) {
		for _, s := range servers {
			s.stop()
		}
		log.Fatalf(format, args...)
	}
	for _, s := range servers[:len(servers)-1] {
		if s.addr == "" {
			if err := s.startLockkv(s.bin); err != nil {
				fatalf("start %s: %v", s.name, err)
			}
		}
	}
	if redis.addr == "" {
		if err := redis.startRedis(*redisBin); err != nil {
			fatalf("start redis-server: %v", err)
		}
	}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fatalf("interrupted")
	}()

	selected := selectWorkloads(*workloads)

	var connList []string
	for _, n := range conns {
		connList = append(connList, strconv.Itoa(n))
	}
	fmt.Printf("lockkv-bench: %s connections, %v per run, median of %d runs, GOMAXPROCS=%s, %d CPUs\n",
		strings.Join(connList, ", "), *duration, *runs, os.Getenv("GOMAXPROCS"), numCPU())
	fmt.Printf("cpu/op: the server process's user+system CPU time (/proc/PID/stat) over the measured window, per operation; max: the slowest round trip\n")
	const row = "%5s %-16s %8s %13s %13s %6s %11s %11s %11s %11s %11s %11s %9s %9s %6s\n"
	fmt.Printf(row, "conns", "workload", "pipeline", "lockkv ops/s", "redis ops/s", "ratio", "lockkv p50", "lockkv p99", "lockkv max",
		"redis p50", "redis p99", "redis max", "lk cpu/op", "rd cpu/op", "ratio")
	for _, nconn := range conns {
		for _, w := range selected {
			for _, depth := range depths {
				measureRow(servers, w, nconn, depth, *runs, *duration, row)
			}
		}
	}

	if *memKeys > 0 {
		fmt.Printf("\nmemory: %d lock hashes (HSET lock:N <uuid>:1 1 + PEXPIRE 30000)\n", *memKeys)
		for _, s := range servers {
			used, rss, err := s.memoryPerKey(*memKeys)
			if err != nil {
				fatalf("%s: memory: %v", s.name, err)
			}
			fmt.Printf("  %-7s used_memory %6.1f bytes/key   RSS %6.1f bytes/key\n", s.name, used, rss)
		}
	}
}

// measureRow measures workload w at conns connections and pipeline depth
// on every server, runs times each (each run starting with another), and
// prints the medians as one row of the table per lockkv (the last server
// is Redis).
func measureRow(servers []*server, w bench.Workload, conns, depth, runs int, d time.Duration, row string) {
	res := make([][]run, len(servers))
	for r := 0; r < runs; r++ {
		// Each run starts with another server.
		order := make([]int, len(servers))
		for i := range order {
			order[i] = (i + r) % len(servers)
		}
		for _, i := range order {
			s := servers[i]
			if err := s.prepare(w); err != nil {
				fatalf("%s: prepare %s: %v", s.name, w.Name, err)
			}
			var cpu [2]time.Duration
			marks := 0
			out, err := bench.Run(s.addr, w, conns, depth, d, func() {
				cpu[marks] = s.cpuTime()
				marks++
			})
			if err != nil {
				fatalf("%s: %s, %d connections: %v", s.name, w.Name, conns, err)
			}
			res[i] = append(res[i], run{Result: out, cpuPerOp: perOp(cpu[1]-cpu[0], out.Ops)})
		}
	}
	rd := summarize(res[len(servers)-1])
	for i, s := range servers[:len(servers)-1] {
		l := summarize(res[i])
		name := w.Name
		if len(servers) > 2 {
			name += " " + s.name
		}
		fmt.Printf(row, strconv.Itoa(conns), name, strconv.Itoa(depth), fmt.Sprintf("%.0f", l.OpsPerSec), fmt.Sprintf("%.0f", rd.OpsPerSec),
			fmt.Sprintf("%.2f", l.OpsPerSec/rd.OpsPerSec), dur(l.P50), dur(l.P99), dur(l.Max), dur(rd.P50), dur(rd.P99), dur(rd.Max),
			us(l.cpuPerOp), us(rd.cpuPerOp), fmt.Sprintf("%.2f", float64(l.cpuPerOp)/float64(max(rd.cpuPerOp, 1))))
	}
}

// variantFlag is -variant: lockkv binaries measured side by side.
type variantFlag []*server

func (v *variantFlag) String() string { return "" }

func (v *variantFlag) Set(arg string) error {
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		return fmt.Errorf("want name=path [ENV=VALUE ...]")
	}
	name, bin, ok := strings.Cut(fields[0], "=")
	if !ok || name == "" || bin == "" {
		return fmt.Errorf("%q: want name=path [ENV=VALUE ...]", arg)
	}
	for _, e := range fields[1:] {
		if !strings.Contains(e, "=") {
			return fmt.Errorf("%q: %q is not ENV=VALUE", arg, e)
		}
	}
	*v = append(*v, &server{name: name, bin: bin, env: fields[1:]})
	return nil
}

// perOp divides a server's CPU time over a run by the run's operations.
func perOp(cpu time.Duration, ops int64) time.Duration {
	return time.Duration(float64(cpu) / float64(max(ops, 1)))
}

// fatalf stops the servers this run started, then exits.
var fatalf = log.Fatalf

func dur(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}

func selectWorkloads(names string) []bench.Workload {
	all := bench.Workloads()
	if names == "all" {
		return all
	}
	if names == "none" || names == "" {
		return nil
	}
	var out []bench.Workload
	for _, n := range strings.Split(names, ",") {
		found := false
		for _, w := range all {
			if strings.EqualFold(w.Name, strings.TrimSpace(n)) {
				out = append(out, w)
				found = true
			}
		}
		if !found {
			fatalf("unknown workload %q", n)
		}
	}
	return out
}

// run is one measured run of one server.
type run struct {
	bench.Result
	cpuPerOp time.Duration // the server's CPU time per operation; 0 when not known
}

// summarize gives the median of the runs' throughput, percentiles and CPU
// per operation, and the slowest round trip of all the runs.
func summarize(rs []run) run {
	var ops []float64
	var p50, p99, cpu []time.Duration
	var out run
	for _, r := range rs {
		ops = append(ops, r.OpsPerSec)
		p50 = append(p50, r.P50)
		p99 = append(p99, r.P99)
		cpu = append(cpu, r.cpuPerOp)
		out.Max = max(out.Max, r.Max)
	}
	out.OpsPerSec, out.P50, out.P99, out.cpuPerOp = bench.Median(ops), bench.Median(p50), bench.Median(p99), bench.Median(cpu)
	return out
}

func us(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fus", float64(d)/float64(time.Microsecond))
}

// cpuTime is the user and system CPU time the server process has used
// (bench.ProcessCPU); 0 for a server this program did not start, or when
// it cannot be read.
func (s *server) cpuTime() time.Duration {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	cpu, err := bench.ProcessCPU(s.cmd.Process.Pid)
	if err != nil {
		return 0
	}
	return cpu
}

type server struct {
	name string
	addr string
	bin  string   // the lockkv binary; "" for this program's own
	env  []string // added to the lockkv process's environment
	cmd  *exec.Cmd
	dir  string
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startLockkv runs lockkv as a separate process (this binary, re-executed,
// or bin) so that it does not share a Go runtime with the load generator.
func (s *server) startLockkv(bin string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	if bin != "" {
		s.cmd = exec.Command(bin, "--addr", addr, "--log-level", "warn")
		s.cmd.Env = append(os.Environ(), s.env...)
	} else {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		s.cmd = exec.Command(self)
		s.cmd.Env = append(os.Environ(), serveEnv+"="+addr)
	}
	s.cmd.SysProcAttr = testutil.ChildProcAttr(false)
	s.cmd.Stderr = os.Stderr
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.addr = addr
	return s.waitReady()
}

func (s *server) startRedis(bin string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(addr)
	s.dir, err = os.MkdirTemp("", "lockkv-bench-redis")
	if err != nil {
		return err
	}
	s.cmd = exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"))
	s.cmd.SysProcAttr = testutil.ChildProcAttr(false)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.addr = addr
	return s.waitReady()
}

func (s *server) waitReady() error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := bench.Dial(s.addr); err == nil {
			_, err = c.Do("PING")
			c.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer on %s", s.name, s.addr)
}

func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
		}
		s.cmd = nil
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

func (s *server) prepare(w bench.Workload) error {
	c, err := bench.Dial(s.addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Do("FLUSHALL"); err != nil {
		return err
	}
	if w.Preload != nil {
		return w.Preload(c)
	}
	return nil
}

// memoryPerKey loads n lock hashes and reports bytes per key from INFO's
// used_memory and from the process's resident set.
func (s *server) memoryPerKey(n int) (used, rss float64, err error) {
	c, err := bench.Dial(s.addr)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := c.Do("FLUSHALL"); err != nil {
		return 0, 0, err
	}
	u0, r0 := s.memory(c)
	const batch = 1000
	for i := 0; i < n; i += batch {
		var buf []byte
		m := min(batch, n-i)
		for j := i; j < i+m; j++ {
			k := []byte("lock:" + strconv.Itoa(j))
			buf = bench.AppendCommand(buf, []byte("HSET"), k, []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1"), []byte("1"))
			buf = bench.AppendCommand(buf, []byte("PEXPIRE"), k, []byte("3000000"))
		}
		if err := c.Pipeline(buf, 2*m); err != nil {
			return 0, 0, err
		}
	}
	u1, r1 := s.memory(c)
	if _, err := c.Do("FLUSHALL"); err != nil {
		return 0, 0, err
	}
	return float64(u1-u0) / float64(n), float64(r1-r0) / float64(n), nil
}

func (s *server) memory(c *bench.Client) (used, rss int64) {
	c.Do("MEMORY", "PURGE") // Redis: jemalloc purge; lockkv: GC, so used_memory is the live heap. Errors ignored.
	info, err := c.Do("INFO", "memory")
	if err == nil {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				used, _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	if s.cmd != nil && s.cmd.Process != nil {
		rss = processRSS(s.cmd.Process.Pid)
	}
	return used, rss
}

func processRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// serve runs lockkv until SIGTERM (the re-executed child).
func serve(addr string) {
	srv, err := lockkv.NewServer(lockkv.Config{Addr: addr})
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		log.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
