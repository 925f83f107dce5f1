package engine

import (
	"time"

	"github.com/lockkv/lockkv/internal/hdrhist"
)

// Command and error statistics: what INFO commandstats, errorstats and
// LATENCY report, counted on the command goroutine.

// countError records an error reply for INFO (total_error_replies and
// errorstats), as Redis's afterErrorReply: reply is the text after '-'.
// The code is the text before the first space, looked for within the
// first 31 bytes (Redis searches 32 bytes of "-CODE ..."); without one
// it is ERR.
func (e *Engine) countError(reply []byte) {
	e.Stats.TotalErrorReplies++
	n := len(reply)
	for i, ch := range reply {
		if ch == '\r' {
			n = i
			break
		}
	}
	code := []byte("ERR")
	for i := 0; i < n && i < 31; i++ {
		if reply[i] == ' ' {
			code = reply[:i]
			break
		}
	}
	if e.srv.errorStats == nil {
		e.srv.errorStats = map[string]int64{}
	}
	if _, ok := e.srv.errorStats[string(code)]; !ok && len(e.srv.errorStats) >= 128 {
		return // Redis stops tracking new error codes past 128
	}
	e.srv.errorStats[string(code)]++
}

// CountErrorReply counts an error reply written outside the engine (a
// protocol error) in INFO errorstats and total_error_replies, as Redis
// counts every addReplyError. msg is the reply without '-'.
func (e *Engine) CountErrorReply(msg string) { e.countError([]byte(msg)) }

// cmdStat is one command's INFO commandstats counters; ns is the time
// the calls took (Redis's microseconds, kept in nanoseconds).
type cmdStat struct {
	calls, rejected, failed, ns int64
	hist                        *hdrhist.Histogram // latency tracking (slowlog.go)
}

// monoBase anchors monoNanos.
var monoBase = time.Now()

// monoNanos is a monotonic clock reading in nanoseconds, never 0: one
// vDSO clock read (time.Since of a monotonic time reads only the
// monotonic clock).
func monoNanos() int64 { return int64(time.Since(monoBase)) + 1 }

// Command statistics follow Redis 7.0's call() and
// incrCommandStatsOnError. Every command that runs counts a call, whether
// a client sent it, EXEC runs it from its queue or a script through
// redis.call. It failed when error replies were counted (countError)
// since the last command was accounted for: a command's own error reply,
// or errors written to other clients while it ran (CLIENT UNBLOCK ...
// ERROR), but not those of the commands it ran itself (EXEC's queue, a
// script's redis.call), which are theirs. A command refused before it ran
// counts a rejected call. Errors Redis counts where they arose and does
// not count again when they are passed on (a script returning the error
// of redis.call) make the passing command fail directly (failedCall).
//
// errPrev is Redis's prev_err_count: callStart sets it when a command
// starts, so errors written between commands (a blocked client served
// after a command) count against no command.

// callStart marks the start of a command for countCall.
func (e *Engine) callStart() { e.srv.errPrev = e.Stats.TotalErrorReplies }

// countCall records a command: run (ran), taking ns, or refused. A
// command queued by MULTI is neither.
func (e *Engine) countCall(s *Spec, ran bool, ns int64) {
	errs := e.Stats.TotalErrorReplies > e.srv.errPrev
	e.srv.errPrev = e.Stats.TotalErrorReplies
	if s == nil || (!ran && !errs) {
		return
	}
	st := e.cmdStat(s)
	if !ran {
		st.rejected++
		return
	}
	st.calls++
	st.ns += ns
	if e.Config.LatencyTracking {
		st.recordLatency(ns)
	}
	if errs {
		st.failed++
	}
}

// failedCall counts a failed call of s whose error was counted elsewhere.
func (e *Engine) failedCall(s *Spec) {
	if s != nil {
		e.cmdStat(s).failed++
	}
}

func (e *Engine) cmdStat(s *Spec) *cmdStat {
	if s.idx >= len(e.srv.cmdStats) {
		e.srv.cmdStats = append(e.srv.cmdStats, make([]cmdStat, specCount-len(e.srv.cmdStats))...)
	}
	return &e.srv.cmdStats[s.idx]
}

// cmdStatIf is s's counters, or nil if none was made.
func (e *Engine) cmdStatIf(s *Spec) *cmdStat {
	if s.idx < len(e.srv.cmdStats) {
		return &e.srv.cmdStats[s.idx]
	}
	return nil
}
