package engine

import (
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/hdrhist"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// SLOWLOG and LATENCY, as Redis 7.0's slowlog.c and latency.c have them,
// fed from endCall: a top-level command (one a client sent, or one EXEC
// ran from its queue as Redis's call() does) slower than
// slowlog-log-slower-than microseconds is logged, one slower than
// latency-monitor-threshold milliseconds is a "command" (or, for a
// command flagged fast, "fast-command") latency sample. Both cost one
// comparison per command while off or under their thresholds. Commands a
// script runs through redis.call are part of the script's time, not
// logged on their own.

var slowlogCommands = []*Spec{
	{Name: "slowlog", Arity: -2, Sub: []*Spec{
		{Name: "get", Arity: -2, Flags: Admin | Loading | Stale, Tips: []string{"request_policy:all_nodes", "nondeterministic_output"}, NodeLocal: true, Fn: slowlogGet},                           // NodeLocal: this node's slow log
		{Name: "len", Arity: 2, Flags: Admin | Loading | Stale, Tips: []string{"request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"}, NodeLocal: true, Fn: slowlogLen}, // NodeLocal: this node's slow log
		{Name: "reset", Arity: 2, Flags: Admin | Loading | Stale, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Fn: slowlogReset},
		{Name: "help", Arity: 2, Flags: Loading | Stale, Fn: slowlogHelp},
	}},
	{Name: "latency", Arity: -2, Sub: []*Spec{
		{Name: "doctor", Arity: 2, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}, NodeLocal: true, Fn: latencyDoctor},   // NodeLocal: this node's latency samples
		{Name: "graph", Arity: 3, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}, NodeLocal: true, Fn: latencyGraph},     // NodeLocal: this node's latency samples
		{Name: "history", Arity: 3, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}, NodeLocal: true, Fn: latencyHistory}, // NodeLocal: this node's latency samples
		{Name: "latest", Arity: 2, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}, NodeLocal: true, Fn: latencyLatest},   // NodeLocal: this node's latency samples
		{Name: "reset", Arity: -2, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Fn: latencyReset},
		{Name: "histogram", Arity: -2, Flags: Admin | NoScript | Loading | Stale, Tips: []string{"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}, NodeLocal: true, Fn: latencyHistogram}, // NodeLocal: this node's latency samples
		{Name: "help", Arity: 2, Flags: Loading | Stale, Fn: latencyHelp},
	}},
}

func init() { Register(slowlogCommands) }

// Redis's SLOWLOG_ENTRY_MAX_ARGC, SLOWLOG_ENTRY_MAX_STRING and
// LATENCY_TS_LEN.
const (
	slowlogMaxArgc   = 32
	slowlogMaxString = 128
	latencyTSLen     = 160
)

// slowlogEntry is one logged command.
type slowlogEntry struct {
	id, time, usec int64
	args           []string
	peer, name     string
}

// slowlogState is the slow log, newest first, and the latency monitor's
// event series in the order they first occurred.
type slowlogState struct {
	entries []slowlogEntry
	nextID  int64
	events  []*latencySeries
}

type latencySample struct{ time, ms int64 }

// latencySeries is one event's samples: a ring of latencyTSLen, at most
// one a second (the worst of that second).
type latencySeries struct {
	name    string
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

// observeCall records a command that ran for ns nanoseconds in the slow
// log and the latency monitor (endCall).
func (e *Engine) observeCall(ctx *Ctx, args [][]byte, ns int64) {
	cfg := e.Config
	if t := cfg.SlowlogLogSlowerThan; t >= 0 && ns/1000 >= t && ctx.Spec.Flags&SkipSlowlog == 0 {
		e.slowlogPush(ctx, args, ns/1000)
	}
	if t := cfg.LatencyMonitorThreshold; t > 0 && ns/1e6 >= t {
		event := "command"
		if ctx.Spec.Flags&Fast != 0 {
			event = "fast-command"
		}
		e.LatencySample(event, ns/1e6)
	}
}

func (e *Engine) slowlogPush(ctx *Ctx, args [][]byte, usec int64) {
	spec := ctx.Spec
	n := min(len(args), slowlogMaxArgc)
	en := slowlogEntry{id: e.slow.nextID, time: e.Clock.Now().Unix(), usec: usec, args: make([]string, n), name: ctx.C.Name}
	e.slow.nextID++
	for i := 0; i < n; i++ {
		a := args[i]
		switch {
		case n != len(args) && i == n-1:
			en.args[i] = "... (" + strconv.Itoa(len(args)-n+1) + " more arguments)"
		case spec.Redact != nil && spec.Redact(args, i):
			en.args[i] = "(redacted)"
		case len(a) > slowlogMaxString:
			en.args[i] = string(a[:slowlogMaxString]) + "... (" + strconv.Itoa(len(a)-slowlogMaxString) + " more bytes)"
		default:
			en.args[i] = string(a)
		}
	}
	if ctx.C.Conn != nil {
		en.peer = ctx.C.Conn.RemoteAddr()
	}
	e.slow.entries = append(e.slow.entries, slowlogEntry{})
	copy(e.slow.entries[1:], e.slow.entries)
	e.slow.entries[0] = en
	e.slowlogTrim()
}

// slowlogTrim drops the oldest entries past slowlog-max-len (as Redis, on
// the next push: CONFIG SET alone trims nothing).
func (e *Engine) slowlogTrim() {
	if max := e.Config.SlowlogMaxLen; int64(len(e.slow.entries)) > max {
		clear(e.slow.entries[max:])
		e.slow.entries = e.slow.entries[:max]
	}
}

func slowlogGet(c *Ctx, args [][]byte) {
	count := int64(10)
	if len(args) > 3 {
		c.W.Error(ErrSubcommandSyntax("slowlog", args[1]))
		return
	}
	if len(args) == 3 {
		n, ok := redisnum.ParseInt(args[2])
		if !ok || n < -1 {
			c.W.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
	}
	ents := c.E.slow.entries
	if count >= 0 && int64(len(ents)) > count {
		ents = ents[:count]
	}
	c.W.Array(len(ents))
	for _, en := range ents {
		c.W.Array(6)
		c.W.Int(en.id)
		c.W.Int(en.time)
		c.W.Int(en.usec)
		c.W.Array(len(en.args))
		for _, a := range en.args {
			c.W.BulkString(a)
		}
		c.W.BulkString(en.peer)
		c.W.BulkString(en.name)
	}
}

func slowlogLen(c *Ctx, args [][]byte) { c.W.Int(int64(len(c.E.slow.entries))) }

func slowlogReset(c *Ctx, args [][]byte) {
	clear(c.E.slow.entries)
	c.E.slow.entries = c.E.slow.entries[:0]
	c.W.OK()
}

var slowlogHelpLines = []string{
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
}

func slowlogHelp(c *Ctx, args [][]byte) { ReplyHelp(c, "slowlog", slowlogHelpLines) }

// LatencySample adds a sample of ms milliseconds to event's series, as
// Redis's latencyAddSample (the caller checks the threshold).
func (e *Engine) LatencySample(event string, ms int64) {
	ts := e.latencySeries(event)
	if ts == nil {
		ts = &latencySeries{name: event}
		e.slow.events = append(e.slow.events, ts)
	}
	now := e.Clock.Now().Unix()
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
	if prev.time == now {
		prev.ms = max(prev.ms, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

func (e *Engine) latencySeries(event string) *latencySeries {
	for _, ts := range e.slow.events {
		if ts.name == event {
			return ts
		}
	}
	return nil
}

func latencyLatest(c *Ctx, args [][]byte) {
	c.W.Array(len(c.E.slow.events))
	for _, ts := range c.E.slow.events {
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		c.W.Array(4)
		c.W.BulkString(ts.name)
		c.W.Int(last.time)
		c.W.Int(last.ms)
		c.W.Int(ts.max)
	}
}

// each calls fn for ts's samples, oldest first.
func (ts *latencySeries) each(fn func(s latencySample)) {
	for j := 0; j < latencyTSLen; j++ {
		if s := ts.samples[(ts.idx+j)%latencyTSLen]; s.time != 0 {
			fn(s)
		}
	}
}

func latencyHistory(c *Ctx, args [][]byte) {
	ts := c.E.latencySeries(string(args[2]))
	if ts == nil {
		c.W.Array(0)
		return
	}
	var got []latencySample
	ts.each(func(s latencySample) { got = append(got, s) })
	c.W.Array(len(got))
	for _, s := range got {
		c.W.Array(2)
		c.W.Int(s.time)
		c.W.Int(s.ms)
	}
}

func latencyReset(c *Ctx, args [][]byte) {
	e := c.E
	resets := 0
	reset := func(match func(name string) bool) {
		kept := e.slow.events[:0]
		for _, ts := range e.slow.events {
			if match(ts.name) {
				resets++
			} else {
				kept = append(kept, ts)
			}
		}
		clear(e.slow.events[len(kept):])
		e.slow.events = kept
	}
	if len(args) == 2 {
		reset(func(string) bool { return true })
	} else {
		for _, a := range args[2:] {
			reset(func(name string) bool { return strings.EqualFold(name, string(a)) })
		}
	}
	c.W.Int(int64(resets))
}

func latencyGraph(c *Ctx, args [][]byte) {
	ts := c.E.latencySeries(string(args[2]))
	if ts == nil {
		c.W.Error("ERR No samples available for event '" + string(args[2]) + "'")
		return
	}
	now := c.E.Clock.Now().Unix()
	var seq sparkline
	var lo, hi int64
	ts.each(func(s latencySample) {
		if len(seq.samples) == 0 {
			lo, hi = s.ms, s.ms
		} else {
			lo, hi = min(lo, s.ms), max(hi, s.ms)
		}
		elapsed := now - s.time
		var label string
		switch {
		case elapsed < 60:
			label = strconv.FormatInt(elapsed, 10) + "s"
		case elapsed < 3600:
			label = strconv.FormatInt(elapsed/60, 10) + "m"
		case elapsed < 3600*24:
			label = strconv.FormatInt(elapsed/3600, 10) + "h"
		default:
			label = strconv.FormatInt(elapsed/(3600*24), 10) + "d"
		}
		seq.add(float64(s.ms), label)
	})
	var b strings.Builder
	b.WriteString(ts.name + " - high " + strconv.FormatInt(hi, 10) + " ms, low " + strconv.FormatInt(lo, 10) +
		" ms (all time high " + strconv.FormatInt(ts.max, 10) + " ms)\n")
	b.WriteString(strings.Repeat("-", 80) + "\n")
	seq.render(&b, 80, 4)
	c.W.Verbatim(b.String(), "txt")
}

// sparkline is Redis's sparkline.c with SPARKLINE_FILL, as LATENCY GRAPH
// draws it.
type sparkline struct {
	samples  []sparkSample
	min, max float64
	labels   int
}

type sparkSample struct {
	value float64
	label string
}

func (s *sparkline) add(v float64, label string) {
	if len(s.samples) == 0 {
		s.min, s.max = v, v
	} else if v < s.min {
		s.min = v
	} else if v > s.max {
		s.max = v
	}
	s.samples = append(s.samples, sparkSample{v, label})
	if label != "" {
		s.labels++
	}
}

func (s *sparkline) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(s.samples); j += columns {
		if j != 0 {
			b.WriteByte('\n')
		}
		s.renderRange(b, rows, j, min(len(s.samples)-j, columns))
	}
}

func (s *sparkline) renderRange(b *strings.Builder, rows, offset, n int) {
	const charsetFill = "_o#"
	const labelMarginTop = 1
	relmax := s.max - s.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charsetFill) * rows
	chars := make([]byte, n)
	for row, loop := 0, true; loop; {
		loop = false
		for j := range chars {
			chars[j] = ' '
		}
		for j := 0; j < n; j++ {
			smp := &s.samples[j+offset]
			relval := smp.value - s.min
			// C's (int)(relval*steps)/relmax, truncated again into an int.
			step := int(float64(int(relval*float64(steps))) / relmax)
			step = max(0, min(step, steps-1))
			if row < rows {
				loop = true
				idx := step - (rows-row-1)*len(charsetFill)
				if idx >= 0 && idx < len(charsetFill) {
					chars[j] = charsetFill[idx]
				} else if idx >= len(charsetFill) {
					chars[j] = '|'
				}
				continue
			}
			if s.labels > 0 && row-rows < labelMarginTop {
				loop = true
				break
			}
			if lc := row - rows - labelMarginTop; len(smp.label) > lc {
				loop = true
				chars[j] = smp.label[lc]
			}
		}
		if loop {
			row++
			b.Write(chars)
			b.WriteByte('\n')
		}
	}
}

func latencyDoctor(c *Ctx, args [][]byte) { c.W.Verbatim(c.E.latencyReport(), "txt") }

// latencyReport is Redis's createLatencyReport for the events lockkv
// records ("command", "fast-command"); the advice about fork, AOF,
// eviction and huge pages never applies.
func (e *Engine) latencyReport() string {
	if len(e.slow.events) == 0 && e.Config.LatencyMonitorThreshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var b strings.Builder
	var slowlogEnabled, slowlogTuning, slowlogInspect, scheduler, largeObjects bool
	advices := 0
	now := e.Clock.Now().Unix()
	for i, ts := range e.slow.events {
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		var samples, sum, lo, hi, oldest int64
		ts.each(func(s latencySample) {
			samples++
			if samples == 1 {
				lo, hi = s.ms, s.ms
			} else {
				lo, hi = min(lo, s.ms), max(hi, s.ms)
			}
			sum += s.ms
			if oldest == 0 || s.time < oldest {
				oldest = s.time
			}
		})
		var avg, mad, period int64
		if samples > 0 {
			avg = sum / samples
			period = now - oldest
			if period == 0 {
				period = 1
			}
			var dev int64
			ts.each(func(s latencySample) {
				d := avg - s.ms
				if d < 0 {
					d = -d
				}
				dev += d
			})
			mad = dev / samples
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + ts.name + ": " + strconv.FormatInt(samples, 10) + " latency spikes (average " +
			strconv.FormatInt(avg, 10) + "ms, mean deviation " + strconv.FormatInt(mad, 10) + "ms, period " +
			strconv.FormatFloat(float64(period)/float64(samples), 'f', 2, 64) + " sec). Worst all time event " +
			strconv.FormatInt(ts.max, 10) + "ms.")
		switch strings.ToLower(ts.name) {
		case "command":
			if e.Config.SlowlogLogSlowerThan < 0 {
				slowlogEnabled = true
				advices++
			} else if e.Config.SlowlogLogSlowerThan/1000 > e.Config.LatencyMonitorThreshold {
				slowlogTuning = true
				advices++
			}
			slowlogInspect, largeObjects = true, true
			advices += 2
		case "fast-command":
			scheduler = true
			advices++
		}
		b.WriteByte('\n')
	}
	n := len(e.slow.events)
	switch {
	case n == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
	case n > 0 && advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
	default:
		thr := strconv.FormatUint(uint64(e.Config.LatencyMonitorThreshold)*1000, 10)
		b.WriteString("\nI have a few advices for you:\n\n")
		if slowlogEnabled {
			b.WriteString("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than " + thr + "'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n")
		}
		if slowlogTuning {
			b.WriteString("- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than " + thr + "'.\n")
		}
		if slowlogInspect {
			b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
		}
		if scheduler {
			b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
				"  1) Lower the system load.\n" +
				"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
				"  3) Check if you have a \"noisy neighbour\" problem.\n" +
				"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
				"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
		}
		if largeObjects {
			b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
		}
	}
	return b.String()
}

var latencyHelpLines = []string{
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
}

func latencyHelp(c *Ctx, args [][]byte) { ReplyHelp(c, "latency", latencyHelpLines) }

// Per-command latency histograms, as Redis 7.0's latency tracking keeps
// them (server.c updateCommandLatencyHistogram, latency.c
// fillCommandCDF, INFO latencystats): while latency-tracking is yes,
// countCall records each call's duration, in whole microseconds times
// 1000 and clamped to [1 ns, 1 s], into the command's hdr histogram (2
// significant digits), made on the command's first tracked call. The hot
// path is the counts-index arithmetic and an increment into the
// command's stats, no lock, no lookup by name. LATENCY HISTOGRAM, INFO
// latencystats and the /metrics duration buckets all read that one
// histogram.

// Redis's LATENCY_HISTOGRAM_MIN_VALUE, _MAX_VALUE and _PRECISION.
const (
	latencyHistMin       = 1
	latencyHistMax       = 1000000000
	latencyHistPrecision = 2
)

func newLatencyHist() *hdrhist.Histogram {
	h, err := hdrhist.New(latencyHistMin, latencyHistMax, latencyHistPrecision)
	if err != nil {
		panic(err)
	}
	return h
}

// recordLatency is updateCommandLatencyHistogram for a call of ns
// nanoseconds (Redis's c->duration, in µs, times 1000).
func (st *cmdStat) recordLatency(ns int64) {
	v := min(max(ns/1000*1000, latencyHistMin), latencyHistMax)
	if st.hist == nil {
		st.hist = newLatencyHist()
	}
	st.hist.Record(v)
}

// LatencyBounds are the upper bounds, in nanoseconds, of the /metrics
// command duration buckets: the values LATENCY HISTOGRAM reports
// (highest_equivalent_value of 1024 ns, 2048 ns, ... up to 1 s), so that
// each bucket's count is exact.
var LatencyBounds = func() []int64 {
	h := newLatencyHist()
	var out []int64
	for level := int64(1024); level <= latencyHistMax; level *= 2 {
		out = append(out, h.HighestEquivalentValue(level))
	}
	return out
}()

// writeLatencyCDF is fillCommandCDF: calls and the cumulative counts of
// the log iterator's steps (from 1024 ns, doubling) keyed by their
// highest value in µs, steps without new calls left out.
func writeLatencyCDF(c *Ctx, h *hdrhist.Histogram) {
	c.W.Map(2)
	c.W.BulkString("calls")
	c.W.Int(h.TotalCount())
	c.W.BulkString("histogram_usec")
	var steps []hdrhist.Step
	prev := int64(0)
	h.LogSteps(1024, 2, func(s hdrhist.Step) {
		if s.Cumulative > prev {
			steps = append(steps, s)
		}
		prev = s.Cumulative
	})
	c.W.Map(len(steps))
	for _, s := range steps {
		c.W.Int(s.HighestEquivalent / 1000)
		c.W.Int(s.Cumulative)
	}
}

// latencyHistogram is LATENCY HISTOGRAM: every command with a histogram
// (latencyAllCommandsFillCDF), or the named ones
// (latencySpecificCommandsFillCDF: unknown names skipped, a container
// naming its subcommands, a name asked twice answered twice).
func latencyHistogram(c *Ctx, args [][]byte) {
	e := c.E
	var found []*Spec
	add := func(s *Spec) {
		if st := e.cmdStatIf(s); st != nil && st.hist != nil {
			found = append(found, s)
		}
	}
	if len(args) == 2 {
		var walk func(specs []*Spec)
		walk = func(specs []*Spec) {
			for _, s := range specs {
				add(s)
				walk(s.Sub)
			}
		}
		walk(e.Specs())
	} else {
		for _, a := range args[2:] {
			s := e.LookupFullName(string(a))
			if s == nil {
				continue
			}
			add(s)
			for _, sub := range s.Sub {
				add(sub)
			}
		}
	}
	c.W.Map(len(found))
	for _, s := range found {
		c.W.BulkString(s.FullName())
		writeLatencyCDF(c, e.cmdStatIf(s).hist)
	}
}

// infoLatencyStats is INFO latencystats (genRedisInfoStringLACStats):
// each command with a histogram, its latency-tracking-info-percentiles
// in µs; nothing while latency-tracking is no.
func infoLatencyStats(e *Engine, b []byte, now int64) []byte {
	if !e.Config.LatencyTracking {
		return b
	}
	pcts := e.Config.LatencyPercentiles()
	var walk func(specs []*Spec)
	walk = func(specs []*Spec) {
		for _, s := range specs {
			if st := e.cmdStatIf(s); st != nil && st.hist != nil {
				b = append(b, "latency_percentiles_usec_"...)
				b = append(b, s.FullName()...)
				b = append(b, ':')
				for i, p := range pcts {
					if i > 0 {
						b = append(b, ',')
					}
					b = append(b, 'p')
					b = append(b, config.FormatPercentile(p)...)
					b = append(b, '=')
					// "%.3f" of the value in ns / 1000.0.
					b = strconv.AppendFloat(b, float64(st.hist.ValueAtPercentile(p))/1000.0, 'f', 3, 64)
				}
				b = append(b, '\r', '\n')
			}
			walk(s.Sub)
		}
	}
	walk(All())
	return b
}

// CommandStat is one command's counters, as INFO commandstats has them,
// with its latency histogram.
type CommandStat struct {
	Name                    string
	Calls, Rejected, Failed int64
	Seconds                 float64
	Nanos                   int64 // the calls' time (Seconds, exact)
	// Buckets counts the tracked calls up to each of LatencyBounds
	// (cumulative); nil when none was tracked.
	Buckets []uint64
}

// CommandStats appends the counters of every command called since
// CONFIG RESETSTAT to out (command goroutine).
func (e *Engine) CommandStats(out []CommandStat) []CommandStat {
	var walk func(specs []*Spec)
	walk = func(specs []*Spec) {
		for _, s := range specs {
			if st := e.cmdStatIf(s); st != nil {
				if st.calls > 0 || st.rejected > 0 || st.failed > 0 {
					cs := CommandStat{Name: s.FullName(), Calls: st.calls, Rejected: st.rejected,
						Failed: st.failed, Seconds: float64(st.ns) / 1e9, Nanos: st.ns}
					if st.hist != nil {
						cs.Buckets = st.hist.CumulativeCounts(LatencyBounds, make([]uint64, len(LatencyBounds)))
					}
					out = append(out, cs)
				}
			}
			walk(s.Sub)
		}
	}
	walk(All())
	return out
}

// UsedMemory is INFO's used_memory (command goroutine).
func (e *Engine) UsedMemory() uint64 { return e.usedMemory() }

// SlowlogLen is SLOWLOG LEN (command goroutine).
func (e *Engine) SlowlogLen() int { return len(e.slow.entries) }
