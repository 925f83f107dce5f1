package replication

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// raftLogger is hashicorp/raft's logger (an hclog.Logger) over the node's
// slog.Logger: each call becomes one slog record at its level, with its
// key-value pairs as attributes and source=raft (or raft.<name>), so a
// line is the node's own format (text or JSON), with one time and one
// level. What the server's level (--log-level, CONFIG SET loglevel)
// drops, Raft does not format.
//
// Levels are calibrated for an operator (levelFor): what Raft logs on
// every retry, every election round or every heartbeat to a peer that
// is down is kept at DEBUG; lockkv logs the event once instead (peer
// unreachable and reachable, quorum lost and regained, leadership,
// progress.go and node.go). hclog's Trace is below DEBUG: never shown.
type raftLogger struct {
	log  *slog.Logger
	name string
	args []any
	// event, when set, hears Raft messages lockkv turns into events of
	// its own (quorumLostMsg).
	event func(msg string)
}

// newRaftLogger is Raft's logger over log.
func newRaftLogger(log *slog.Logger, event func(msg string)) *raftLogger {
	return &raftLogger{log: log, name: "raft", event: event}
}

// levelTrace is hclog's Trace: below slog's Debug, dropped at every
// level lockkv offers.
const levelTrace = slog.LevelDebug - 4

// quorumLostMsg is what a Raft leader logs when it steps down because no
// quorum answered it within the leader lease.
const quorumLostMsg = "failed to contact quorum of nodes, stepping down"

// raftDebug are Raft messages logged on every retry, round or heartbeat,
// or that restate a transition lockkv logs itself: DEBUG whatever level
// Raft gives them.
var raftDebug = map[string]bool{
	// Per retry to a peer that is down: lockkv logs "peer unreachable"
	// once (progress.go).
	"failed to heartbeat to":                  true,
	"failed to appendEntries to":              true,
	"failed to make requestVote RPC":          true,
	"failed to pipeline appendEntries":        true,
	"failed to start pipeline replication to": true,
	"failed to contact":                       true,
	"pipelining replication":                  true,
	"aborting pipeline replication":           true,
	"failed to decode incoming command":       true, // a peer's connection dropped
	// Per election round while no quorum answers, or from a node that is
	// not a member (removed, or waiting to be added).
	"Election timeout reached, restarting election":                 true,
	"entering candidate state":                                      true,
	"pre-vote campaign failed, waiting for election timeout":        true,
	"pre-vote successful, starting election":                        true,
	"rejecting vote request since we have a leader":                 true,
	"rejecting pre-vote request since we have a leader":             true,
	"rejecting vote request since node is not in configuration":     true,
	"rejecting pre-vote request since node is not in configuration": true,
	"rejecting vote request since node is not a voter":              true,
	"rejecting pre-vote request since node is not a voter":          true,
	"no known peers, aborting election":                             true,
	"not part of stable configuration, aborting election":           true,
	"duplicate requestVote for same term":                           true,
	"duplicate requestVote from":                                    true,
	"heartbeat timeout reached, not part of a stable configuration or a non-voter, not triggering a leader election": true,
	// A candidate whose log is behind ours is refused: the normal end of
	// an election it cannot win, and at a healthy start a vote request
	// that arrives after the winner's first entry.
	"rejecting vote request since our last term is greater":      true,
	"rejecting pre-vote request since our last term is greater":  true,
	"rejecting vote request since our last index is greater":     true,
	"rejecting pre-vote request since our last index is greater": true,
	// Transitions lockkv logs itself: "leader lost", "leader changed",
	// "leadership gained", "quorum lost", and the membership changes.
	"heartbeat timeout reached, starting election": true,
	"entering follower state":                      true,
	"entering leader state":                        true,
	"election won":                                 true,
	quorumLostMsg:                                  true,
	"added peer, starting replication":             true,
	"removed peer, stopping replication":           true,
	"updating peer":                                true,
	// Snapshot bookkeeping ("starting snapshot up to" and "snapshot
	// complete up to" stay at INFO).
	"creating new snapshot": true,
	"reaping snapshot":      true,
	"no logs to truncate":   true,
}

// levelFor is the slog level of one of Raft's lines.
func levelFor(l hclog.Level, msg string, args []any) slog.Level {
	if raftDebug[msg] {
		return slog.LevelDebug
	}
	for _, a := range args {
		if err, ok := a.(error); ok && strings.Contains(err.Error(), refusedTag) {
			// A retry of a connection the handshake refused, which the
			// transport logged once.
			return slog.LevelDebug
		}
	}
	switch {
	case l <= hclog.Trace:
		return levelTrace
	case l == hclog.Debug:
		return slog.LevelDebug
	case l == hclog.Info:
		return slog.LevelInfo
	case l == hclog.Warn:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func (l *raftLogger) Log(level hclog.Level, msg string, args ...any) {
	if msg == quorumLostMsg && l.event != nil {
		l.event(msg)
	}
	lv := levelFor(level, msg, args)
	ctx := context.Background()
	if !l.log.Enabled(ctx, lv) {
		return
	}
	attrs := make([]slog.Attr, 0, 1+(len(l.args)+len(args))/2)
	attrs = append(attrs, slog.String("source", l.name))
	attrs = appendAttrs(attrs, l.args)
	attrs = appendAttrs(attrs, args)
	l.log.LogAttrs(ctx, lv, msg, attrs...)
}

// appendAttrs turns hclog's key-value pairs into attributes.
func appendAttrs(attrs []slog.Attr, kv []any) []slog.Attr {
	for i := 0; i < len(kv); i += 2 {
		if i+1 == len(kv) {
			attrs = append(attrs, slog.Any("EXTRA_VALUE_AT_END", attrValue(kv[i])))
			break
		}
		key, ok := kv[i].(string)
		if !ok {
			key = fmt.Sprint(kv[i])
		}
		key = strings.ReplaceAll(key, " ", "_")
		switch key {
		case slog.TimeKey, slog.LevelKey, slog.MessageKey, "source":
			// Raft's "time" (how long a peer was silent) is not the
			// record's time.
			key = "raft_" + key
		}
		attrs = append(attrs, slog.Any(key, attrValue(kv[i+1])))
	}
	return attrs
}

// attrValue is a value slog renders alike as text and JSON: errors,
// Stringers (Raft passes itself) and structs become text.
func attrValue(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time:
		return x
	case time.Duration:
		return x.String() // JSON would say nanoseconds
	case hclog.Format:
		if len(x) > 0 {
			if f, ok := x[0].(string); ok {
				return fmt.Sprintf(f, x[1:]...)
			}
		}
		return fmt.Sprint(x...)
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprintf("%+v", v)
}

func (l *raftLogger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }
func (l *raftLogger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }
func (l *raftLogger) Info(msg string, args ...any)  { l.Log(hclog.Info, msg, args...) }
func (l *raftLogger) Warn(msg string, args ...any)  { l.Log(hclog.Warn, msg, args...) }
func (l *raftLogger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

func (l *raftLogger) enabled(lv slog.Level) bool { return l.log.Enabled(context.Background(), lv) }

func (l *raftLogger) IsTrace() bool { return l.enabled(levelTrace) }
func (l *raftLogger) IsDebug() bool { return l.enabled(slog.LevelDebug) }
func (l *raftLogger) IsInfo() bool  { return l.enabled(slog.LevelInfo) }
func (l *raftLogger) IsWarn() bool  { return l.enabled(slog.LevelWarn) }
func (l *raftLogger) IsError() bool { return l.enabled(slog.LevelError) }

func (l *raftLogger) ImpliedArgs() []any { return l.args }

func (l *raftLogger) With(args ...any) hclog.Logger {
	c := *l
	c.args = append(append([]any(nil), l.args...), args...)
	return &c
}

func (l *raftLogger) Name() string { return l.name }

func (l *raftLogger) Named(name string) hclog.Logger {
	c := *l
	if c.name != "" {
		c.name += "." + name
	} else {
		c.name = name
	}
	return &c
}

func (l *raftLogger) ResetNamed(name string) hclog.Logger {
	c := *l
	c.name = name
	return &c
}

// SetLevel does nothing: the server's level decides (CONFIG SET loglevel).
func (l *raftLogger) SetLevel(hclog.Level) {}

// GetLevel is the lowest level the server's logger shows now.
func (l *raftLogger) GetLevel() hclog.Level {
	switch {
	case l.IsTrace():
		return hclog.Trace
	case l.IsDebug():
		return hclog.Debug
	case l.IsInfo():
		return hclog.Info
	case l.IsWarn():
		return hclog.Warn
	}
	return hclog.Error
}

func (l *raftLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter logs each line written at opts.ForceLevel (Info when
// unset).
func (l *raftLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	level := hclog.Info
	if opts != nil && opts.ForceLevel != hclog.NoLevel {
		level = opts.ForceLevel
	}
	return lineWriter{l: l, level: level}
}

type lineWriter struct {
	l     *raftLogger
	level hclog.Level
}

func (w lineWriter) Write(p []byte) (int, error) {
	sc := bufio.NewScanner(strings.NewReader(string(p)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			w.l.Log(w.level, line)
		}
	}
	return len(p), nil
}

var _ hclog.Logger = (*raftLogger)(nil)
