package conformance

import (
	"strings"
	"testing"
)

// SLOWLOG and LATENCY against Redis 7.0.15: reply shapes, the arguments
// logged (trimmed, redacted, counted), error texts, HELP and DOCTOR.
// Timings differ between the servers, so ids, timestamps, durations and
// client addresses are masked; everything else is compared.

// slowlogSettings restores the settings these tests change.
func slowlogSettings(t *testing.T, p *Pair) {
	t.Cleanup(func() {
		p.Do("CONFIG", "SET", "slowlog-log-slower-than", "10000")
		p.Do("CONFIG", "SET", "slowlog-max-len", "128")
		p.Do("CONFIG", "SET", "latency-monitor-threshold", "0")
		p.Do("SLOWLOG", "RESET")
		p.Do("LATENCY", "RESET")
	})
}

// maskSlowlog blanks what timing decides in a SLOWLOG GET reply: id,
// timestamp, duration and client address of each entry.
func maskSlowlog(v Value) Value {
	if v.Kind != '*' {
		return v
	}
	out := v
	out.Elems = make([]Value, len(v.Elems))
	for i, en := range v.Elems {
		if en.Kind == '*' && len(en.Elems) == 6 {
			en.Elems = append([]Value(nil), en.Elems...)
			for _, j := range []int{0, 1, 2} {
				en.Elems[j] = Value{Kind: ':', Str: "N"}
			}
			en.Elems[4] = Value{Kind: '$', Str: "addr"}
		}
		out.Elems[i] = en
	}
	return out
}

func (p *Pair) doSlowlog(args ...string) Value {
	p.t.Helper()
	lv, rv := p.both(args)
	p.check(args, lv, rv, Equal(maskSlowlog(lv), maskSlowlog(rv)))
	return rv
}

func TestSlowlogParity(t *testing.T) {
	p := NewPair(t)
	slowlogSettings(t, p)
	p.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
	p.Do("SLOWLOG", "RESET")
	p.Do("SET", "k", "v")
	p.Do("CLIENT", "SETNAME", "logged")
	long := strings.Repeat("x", 300)
	p.Do("SET", long, "v")
	many := []string{"MSET"}
	for i := 0; i < 40; i++ {
		many = append(many, "k"+string(rune('a'+i%26)), "v")
	}
	p.Do(many...)
	p.Do("AUTH", "nosuchpass")
	p.Do("MULTI")
	p.Do("INCR", "n")
	p.Do("EXEC")
	p.Do("SLOWLOG", "LEN")
	p.doSlowlog("SLOWLOG", "GET")
	p.doSlowlog("SLOWLOG", "GET", "-1")
	p.doSlowlog("SLOWLOG", "GET", "2")
	p.doSlowlog("SLOWLOG", "GET", "0")
	for _, bad := range [][]string{
		{"SLOWLOG", "GET", "-2"}, {"SLOWLOG", "GET", "x"}, {"SLOWLOG", "GET", "99999999999999999999"},
		{"SLOWLOG", "GET", "1", "2"}, {"SLOWLOG", "LEN", "x"}, {"SLOWLOG", "RESET", "x"},
		{"SLOWLOG"}, {"SLOWLOG", "NOPE"}, {"SLOWLOG", "HELP", "x"},
	} {
		p.Do(bad...)
	}
	p.Do("SLOWLOG", "HELP")
	p.Do("SLOWLOG", "RESET")
	p.Do("SLOWLOG", "LEN")

	// slowlog-max-len keeps the newest entries; a negative threshold
	// logs nothing.
	p.Do("CONFIG", "SET", "slowlog-max-len", "3")
	for i := 0; i < 5; i++ {
		p.Do("PING")
	}
	p.Do("SLOWLOG", "LEN")
	p.doSlowlog("SLOWLOG", "GET")
	p.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
	p.Do("SLOWLOG", "RESET")
	p.Do("PING")
	p.Do("SLOWLOG", "LEN")
	p.Do("CONFIG", "SET", "slowlog-log-slower-than", "-2")
	p.Do("CONFIG", "SET", "slowlog-max-len", "-1")
	p.DoPairsSorted("CONFIG", "GET", "slowlog-*")
}

func TestLatencyParity(t *testing.T) {
	p := NewPair(t)
	slowlogSettings(t, p)
	p.Do("LATENCY", "RESET")
	p.Do("LATENCY", "LATEST")
	p.Do("LATENCY", "HISTORY", "command")
	p.Do("LATENCY", "GRAPH", "command")
	p.Do("LATENCY", "DOCTOR")
	p.Do("LATENCY", "HELP")
	for _, bad := range [][]string{
		{"LATENCY"}, {"LATENCY", "NOPE"}, {"LATENCY", "GRAPH"}, {"LATENCY", "GRAPH", "a", "b"},
		{"LATENCY", "HISTORY"}, {"LATENCY", "LATEST", "x"}, {"LATENCY", "DOCTOR", "x"}, {"LATENCY", "HELP", "x"},
	} {
		p.Do(bad...)
	}
	p.Do("LATENCY", "RESET", "command", "nosuchevent")

	// A sample: DEBUG SLEEP is a slow command ("command") on both. The
	// threshold is high enough that no other command of a loaded machine
	// reaches it.
	p.Do("CONFIG", "SET", "latency-monitor-threshold", "100")
	p.Do("LATENCY", "DOCTOR")
	p.Do("DEBUG", "SLEEP", "0.15")
	lv, rv := p.both([]string{"LATENCY", "LATEST"})
	same := lv.Kind == '*' && rv.Kind == '*' && len(lv.Elems) == len(rv.Elems) && sameShape(lv, rv)
	if same && len(rv.Elems) == 1 {
		same = lv.Elems[0].Elems[0].Str == "command" && rv.Elems[0].Elems[0].Str == "command"
	}
	p.check("LATENCY LATEST after DEBUG SLEEP", lv, rv, same)
	p.DoShape("LATENCY", "HISTORY", "command")
	// GRAPH and DOCTOR name the durations measured; compare their first
	// line's words that do not depend on them.
	lv, rv = p.both([]string{"LATENCY", "GRAPH", "command"})
	p.check("LATENCY GRAPH command", lv, rv, lv.Kind == rv.Kind && strings.HasPrefix(lv.Str, "command - high ") &&
		strings.Count(lv.Str, "\n") == strings.Count(rv.Str, "\n"))
	lv, rv = p.both([]string{"LATENCY", "DOCTOR"})
	p.check("LATENCY DOCTOR", lv, rv, lv.Kind == rv.Kind && strings.Contains(lv.Str, "1. command: 1 latency spikes") &&
		strings.Contains(rv.Str, "1. command: 1 latency spikes") &&
		strings.Contains(lv.Str, "Check your Slow Log") && strings.Contains(rv.Str, "Check your Slow Log") &&
		strings.Count(lv.Str, "\n") == strings.Count(rv.Str, "\n"))
	p.Do("LATENCY", "RESET", "COMMAND")
	p.Do("LATENCY", "LATEST")
	p.Do("LATENCY", "GRAPH", "command")
	p.Do("CONFIG", "SET", "latency-monitor-threshold", "-1")
	p.Do("CONFIG", "GET", "latency-monitor-threshold")
}
