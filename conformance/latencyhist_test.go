package conformance

import (
	"strings"
	"testing"
)

// LATENCY HISTOGRAM, INFO latencystats and latency-tracking against Redis
// 7.0.15. Durations differ between the servers, so a histogram's buckets
// are compared through what timing cannot change: the commands listed,
// their calls, the reply types, and the last cumulative count (all the
// calls). DEBUG SLEEP 1 is the exception: at 1 s or more every duration
// is clamped to LATENCY_HISTOGRAM_MAX_VALUE, so its histogram and
// percentiles are compared byte for byte.

func latencySettings(t *testing.T, p *Pair) {
	t.Cleanup(func() {
		p.Do("CONFIG", "SET", "latency-tracking", "yes")
		p.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9")
	})
}

// maskHistogram replaces each histogram_usec map of a LATENCY HISTOGRAM
// reply by its kind and its last cumulative count.
func maskHistogram(v Value) Value {
	out := v
	out.Elems = append([]Value(nil), v.Elems...)
	for i := 1; i < len(out.Elems); i += 2 {
		cmd := out.Elems[i]
		cmd.Elems = append([]Value(nil), cmd.Elems...)
		for j := 0; j+1 < len(cmd.Elems); j += 2 {
			if cmd.Elems[j].Str == "histogram_usec" {
				h := cmd.Elems[j+1]
				last := Value{Kind: ':', Str: "none"}
				if n := len(h.Elems); n >= 2 {
					last = h.Elems[n-1]
				}
				cmd.Elems[j+1] = Value{Kind: h.Kind, Elems: []Value{last}}
			}
		}
		out.Elems[i] = cmd
	}
	return out
}

func (p *Pair) doHistogram(args ...string) {
	p.t.Helper()
	lv, rv := p.both(args)
	// Sorted by command name (Redis lists its dict's order), pairs kept.
	sorted := func(v Value) Value {
		if v.Kind == '*' {
			return maskHistogram(v).SortedPairs()
		}
		return maskHistogram(v).Sorted()
	}
	p.check(args, lv, rv, Equal(sorted(lv), sorted(rv)))
}

// infoLatency is INFO latencystats with each percentile's value masked,
// its lines sorted.
func (p *Pair) infoLatency() {
	p.t.Helper()
	args := []string{"INFO", "latencystats"}
	lv, rv := p.both(args)
	mask := func(v Value) string {
		lines := strings.Split(v.Str, "\r\n")
		for i, l := range lines {
			name, pcts, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			ps := strings.Split(pcts, ",")
			for j, pv := range ps {
				k, _, _ := strings.Cut(pv, "=")
				ps[j] = k + "=N"
			}
			if name == "latency_percentiles_usec_debug" {
				ps = []string{pcts} // clamped to 1 s: exact
			}
			lines[i] = name + ":" + strings.Join(ps, ",")
		}
		sortStrings(lines)
		return string(v.Kind) + strings.Join(lines, "\n")
	}
	p.check(args, lv, rv, mask(lv) == mask(rv))
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestLatencyHistogramParity(t *testing.T) {
	p := NewPair(t)
	latencySettings(t, p)
	p.Do("CONFIG", "RESETSTAT")
	p.Do("LATENCY", "HISTOGRAM", "set", "nosuch")
	for i := 0; i < 3; i++ {
		p.Do("SET", "k", "v")
	}
	p.Do("GET", "k")
	p.Do("CLIENT", "GETNAME")
	p.Do("CONFIG", "GET", "maxmemory")
	p.Do("MULTI")
	p.Do("INCR", "n")
	p.Do("EXEC")
	p.Do("EVAL", "return redis.call('set', 'x', '1')", "0")
	p.Do("GET", "nosuchcommand-neither") // a GET all the same
	p.Do("NOSUCHCOMMAND")
	p.Do("GET") // refused: no call

	// A blocked command counts its call when served.
	q := Connect(t)
	q.Send("BLPOP", "bl", "0")
	p.Do("LPUSH", "bl", "x")
	q.Receive()

	p.doHistogram("LATENCY", "HISTOGRAM", "set", "get", "nosuch", "client", "config|get", "config|nosuch", "incr", "exec", "multi", "eval", "blpop", "lpush")
	p.doHistogram("LATENCY", "HISTOGRAM", "set", "SET", "Client|GetName")
	p.doHistogram("LATENCY", "HISTOGRAM", "nosuch", "client|getname|x", "|", "client|", "get|x")
	p.doHistogram("LATENCY", "HISTOGRAM", "hset", "del")
	p.doHistogram("LATENCY", "HISTOGRAM")
	p.Do("DEBUG", "SLEEP", "1")
	p.Do("LATENCY", "HISTOGRAM", "debug")
	p.infoLatency()
	p.Do("HELLO", "3")
	p.doHistogram("LATENCY", "HISTOGRAM", "set", "client", "eval")
	p.doHistogram("LATENCY", "HISTOGRAM")
	p.Do("LATENCY", "HISTOGRAM", "debug")
	p.Do("HELLO", "2")

	// The percentiles INFO shows, "%f" trimmed.
	p.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "0 0.1 25.50 100")
	p.Do("CONFIG", "GET", "latency-tracking-info-percentiles")
	p.infoLatency()
	p.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "")
	p.infoLatency()
	p.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "101")
	p.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "50 x")

	// latency-tracking no: nothing recorded, INFO latencystats empty,
	// LATENCY HISTOGRAM still answers with what was recorded.
	p.Do("CONFIG", "SET", "latency-tracking", "no")
	p.Do("CONFIG", "GET", "latency-tracking")
	p.Do("SET", "k", "v")
	p.Do("HSET", "h", "f", "v")
	p.doHistogram("LATENCY", "HISTOGRAM", "set", "hset")
	p.Do("INFO", "latencystats")
	p.Do("CONFIG", "SET", "latency-tracking", "maybe")

	// CONFIG RESETSTAT drops them all.
	p.Do("CONFIG", "RESETSTAT")
	p.Do("LATENCY", "HISTOGRAM")
	p.Do("CONFIG", "SET", "latency-tracking", "yes")
	p.Do("CONFIG", "RESETSTAT")
	p.doHistogram("LATENCY", "HISTOGRAM")
	p.Do("LATENCY", "HISTOGRAM", "set")
	p.Do("LATENCY", "HELP")
	p.Do("COMMAND", "INFO", "latency|histogram")
	p.Do("COMMAND", "DOCS", "latency|histogram")
}
