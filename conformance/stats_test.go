package conformance

import (
	"sort"
	"strings"
	"testing"
	"time"
)

// INFO commandstats and errorstats against Redis 7.0.15's accounting:
// commands run by EXEC and by scripts count as calls of their own, their
// errors count once, where they arose; a command refused before it ran
// counts a rejected call.

// statsMatch compares the calls, rejected_calls and failed_calls of every
// command in INFO commandstats (not usec, which is timing), the whole INFO
// errorstats section, and total_error_replies and
// total_commands_processed. Commands in skip are left out of commandstats
// (INFO, when a test polls one server more often than the other).
func (p *Pair) statsMatch(what string, skip ...string) {
	p.t.Helper()
	lv, rv := p.DoShape("INFO", "commandstats")
	l, r := commandStats(lv.Str), commandStats(rv.Str)
	for _, name := range skip {
		delete(l, name)
		delete(r, name)
	}
	same := true
	names := map[string]bool{}
	for k := range l {
		names[k] = true
	}
	for k := range r {
		names[k] = true
	}
	sorted := make([]string, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		if l[name] != r[name] {
			p.t.Errorf("%s: cmdstat_%s: lockkv %q, redis %q", what, name, l[name], r[name])
			same = false
		}
	}
	p.check(what+": INFO commandstats", lv, rv, same)

	lv, rv = p.DoShape("INFO", "errorstats")
	if lv.Str != rv.Str {
		p.t.Errorf("%s: INFO errorstats:\n  lockkv: %q\n  redis:  %q", what, lv.Str, rv.Str)
	}
	p.check(what+": INFO errorstats", lv, rv, lv.Str == rv.Str)

	lv, rv = p.DoShape("INFO", "stats")
	_, lf := infoFields(lv.Str)
	_, rf := infoFields(rv.Str)
	same = true
	fields := []string{"total_error_replies"}
	if len(skip) == 0 {
		fields = append(fields, "total_commands_processed")
	}
	for _, k := range fields {
		if lf[k] != rf[k] {
			p.t.Errorf("%s: %s: lockkv %s, redis %s", what, k, lf[k], rf[k])
			same = false
		}
	}
	p.check(what+": INFO stats", lv, rv, same)
}

// statsWorkload runs each command on both servers, comparing replies,
// then the statistics (after EXEC or DISCARD inside a transaction).
func (p *Pair) statsWorkload(cmds [][]string) {
	p.t.Helper()
	multi := false
	for _, args := range cmds {
		v := p.Do(args...)
		switch strings.ToUpper(args[0]) {
		case "MULTI":
			multi = multi || v.Kind != '-'
		case "EXEC", "DISCARD":
			multi = false
		}
		if !multi {
			p.statsMatch(strings.Join(args, " "))
		}
	}
}

func TestStatsPlainAndMulti(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "RESETSTAT")
	p.statsWorkload([][]string{
		{"SET", "s", "str"},
		{"GET", "s"},
		{"GET"},
		{"HGET", "s", "f"},
		{"NOSUCH", "x"},
		{"CONFIG", "NOSUCH"},
		{"CONFIG"},
		// EXEC runs; each queued command is a call of its own, its
		// error its own (EXEC does not fail).
		{"MULTI"},
		{"INCR", "s"},
		{"HSET", "s", "f", "v"},
		{"SET", "n", "1"},
		{"INCR", "n"},
		{"EXEC"},
		// A refused command inside MULTI is rejected; EXEC then runs and
		// fails with EXECABORT.
		{"MULTI"},
		{"INCR", "n"},
		{"HSET", "s"},
		{"NOSUCH"},
		{"EXEC"},
		{"EXEC"},
		{"DISCARD"},
		{"MULTI"},
		{"MULTI"},
		{"WATCH", "n"},
		{"DISCARD"},
		// Error codes: the text before the first space within 32 bytes
		// of "-CODE ...", else ERR.
		{"EVAL", "return redis.error_reply('NOSPACE')", "0"},
		{"EVAL", "return redis.error_reply('ABCDEFGHIJKLMNOPQRSTUVWXYZABCD x')", "0"},
		{"EVAL", "return redis.error_reply('ABCDEFGHIJKLMNOPQRSTUVWXYZABCDE x')", "0"},
		{"EVAL", "return {err='-DASH x'}", "0"},
	})
}

func TestStatsScripts(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "RESETSTAT")
	p.statsWorkload([][]string{
		{"SET", "s", "str"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "s"},
		// redis.call's error counts once (hget's), the script fails.
		{"EVAL", "return redis.call('hget', KEYS[1], 'f')", "1", "s"},
		{"EVAL", "return redis.pcall('hget', KEYS[1], 'f')", "1", "s"},
		// Caught and dropped: hget failed, the script did not.
		{"EVAL", "local r = redis.pcall('hget', KEYS[1], 'f') return 1", "1", "s"},
		{"EVAL", "local r = redis.pcall('hget', KEYS[1], 'f') return redis.call('get', KEYS[1])", "1", "s"},
		{"EVAL", "return redis.call('incr', KEYS[1])", "1", "s"},
		// Refused inside the script: rejected calls (none for an unknown
		// command).
		{"EVAL", "return redis.call('nosuch')", "0"},
		{"EVAL", "return redis.pcall('nosuch')", "0"},
		{"EVAL", "return redis.call('get')", "0"},
		{"EVAL", "return redis.pcall('get', 'a', 'b')", "0"},
		{"EVAL", "return redis.call('multi')", "0"},
		{"EVAL", "return redis.pcall('evalsha', 'x', '0')", "0"},
		{"EVAL", "return redis.pcall('config', 'nosuch')", "0"},
		{"EVAL", "return redis.pcall('config')", "0"},
		{"EVAL_RO", "return redis.call('set', KEYS[1], '1')", "1", "x"},
		// redis.call's own argument errors: counted by the script's reply.
		{"EVAL", "return redis.call()", "0"},
		{"EVAL", "return redis.pcall()", "0"},
		{"EVAL", "return redis.call({})", "0"},
		{"EVAL", "return redis.pcall({})", "0"},
		{"EVAL", "local t = redis.pcall() return tostring(t.ignore_error_stats_update)", "0"},
		{"EVAL", "local t = redis.pcall('nosuch') return tostring(t.ignore_error_stats_update)", "0"},
		// Script errors of its own.
		{"EVAL", "error('boom')", "0"},
		{"EVAL", "return redis.error_reply('MYERR something')", "0"},
		{"EVAL", "return {err='OTHER thing'}", "0"},
		{"EVAL", "local ok, e = pcall(redis.call, 'hget', KEYS[1], 'f') error(e)", "1", "s"},
		{"EVAL", "local ok, e = pcall(redis.call, 'hget', KEYS[1], 'f') return e", "1", "s"},
		{"EVAL", "local e = redis.pcall('hget', KEYS[1], 'f') return {err=e.err}", "1", "s"},
		// Errors inside an array: passed-on ones fail the script once
		// each, new ones count.
		{"EVAL", "return {1, redis.pcall('hget', KEYS[1], 'f'), redis.error_reply('AAA b'), redis.pcall('hget', KEYS[1], 'f')}", "1", "s"},
		{"EVAL", "return {redis.pcall('hget', KEYS[1], 'f')}", "1", "s"},
		{"EVAL", "return redis.status_reply('OK')", "0"},
		// Refused before the script runs.
		{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
		{"EVAL", "retur", "0"},
		{"EVAL", "return 1", "x"},
		{"EVAL", "return 1"},
		// Scripts inside EXEC.
		{"MULTI"},
		{"EVAL", "return redis.call('hget', KEYS[1], 'f')", "1", "s"},
		{"EVAL", "return redis.pcall('hget', KEYS[1], 'f')", "1", "s"},
		{"EVAL", "local r = redis.pcall('incr', KEYS[1]) return 'ok'", "1", "s"},
		{"INCR", "s"},
		{"EXEC"},
	})
}

func TestStatsFunctions(t *testing.T) {
	p := NewPair(t)
	p.Do("FUNCTION", "FLUSH")
	p.Do("CONFIG", "RESETSTAT")
	lib := "#!lua name=statslib\n" +
		"redis.register_function('ok', function(k, a) return redis.call('set', k[1], 'v') end)\n" +
		"redis.register_function('bad', function(k, a) return redis.call('hget', k[1], 'f') end)\n" +
		"redis.register_function('pbad', function(k, a) return redis.pcall('hget', k[1], 'f') end)\n" +
		"redis.register_function('perr', function(k, a) redis.pcall('incr', k[1]) return 'x' end)\n" +
		"redis.register_function{function_name='ro', callback=function(k, a) return redis.call('set', k[1], 'v') end, flags={'no-writes'}}\n" +
		"redis.register_function('boom', function(k, a) error('boom') end)\n" +
		"redis.register_function('arr', function(k, a) return {redis.pcall('hget', k[1], 'f'), redis.error_reply('X y')} end)"
	p.statsWorkload([][]string{
		{"SET", "s", "str"},
		{"FUNCTION", "LOAD", lib},
		{"FUNCTION", "LOAD", lib},
		{"FCALL", "ok", "1", "s"},
		{"SET", "s", "str"},
		{"FCALL", "bad", "1", "s"},
		{"FCALL", "pbad", "1", "s"},
		{"FCALL", "perr", "1", "s"},
		{"FCALL", "arr", "1", "s"},
		{"FCALL", "ro", "1", "s"},
		{"FCALL_RO", "ro", "1", "s"},
		{"FCALL_RO", "ok", "1", "s"},
		{"FCALL", "boom", "0"},
		{"FCALL", "nosuch", "0"},
		{"FCALL", "ok", "x"},
		{"FCALL"},
		{"MULTI"},
		{"FCALL", "bad", "1", "s"},
		{"FCALL", "pbad", "1", "s"},
		{"EXEC"},
		{"FUNCTION", "DELETE", "statslib"},
	})
}

// Blocked clients: CLIENT UNBLOCK makes the blocked command a failed call
// in Redis 7.0.15 even with the timeout reply; a client served with an
// error (BLMOVE into a string) fails its command; errors written while
// CLIENT UNBLOCK ... ERROR runs fail it; timeouts are no failures.
func TestStatsBlocked(t *testing.T) {
	p := blockPair(t)
	p.Do("CONFIG", "RESETSTAT")
	a := Connect(t)
	lid, rid := clientIDs(t, a)
	unblock := func(mode ...string) {
		t.Helper()
		unblockBoth(t, p, a, lid, rid, mode...)
	}
	for _, cmd := range [][]string{{"BLPOP", "q", "0"}, {"WAIT", "1", "0"}, {"BZPOPMIN", "z", "0"}} {
		for _, mode := range [][]string{nil, {"ERROR"}} {
			a.Send(cmd...)
			waitBlocked(t, 1)
			unblock(mode...)
			p.statsMatch(strings.Join(cmd, " ")+" unblocked "+strings.Join(mode, ""), "info")
		}
	}
	a.Do("BLPOP", "q", "0.01")
	a.Do("WAIT", "1", "10")
	p.statsMatch("timeouts", "info")

	p.Do("SET", "dst", "str")
	a.Send("BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
	waitBlocked(t, 1)
	p.Do("LPUSH", "src", "x")
	a.Receive()
	p.Do("PING")
	p.statsMatch("BLMOVE served into a string", "info")

	// Served after EXEC (the element went back to src).
	p.Do("LRANGE", "src", "0", "-1")
	p.Do("DEL", "src")
	a.Send("BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
	waitBlocked(t, 1)
	p.Do("MULTI")
	p.Do("RPUSH", "src", "x")
	p.Do("PING")
	p.Do("EXEC")
	a.Receive()
	p.Do("PING")
	p.statsMatch("BLMOVE served after EXEC", "info")
}

// A protocol error counts as an ERR reply, against no command.
func TestStatsProtocolError(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "RESETSTAT")
	bad := Connect(t)
	bad.SendRaw([]byte("*1\r\n$x\r\n"))
	bad.Receive()
	bad.Closed(2 * time.Second)
	p.Do("PING")
	p.statsMatch("protocol error")
}
