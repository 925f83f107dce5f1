package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// newLogger is the server's logger: one line per event, text (key=value)
// or JSON, on stderr or appended to file. It passes every level: the
// server filters by --log-level, which CONFIG SET loglevel moves.
func newLogger(format, file string) (*slog.Logger, error) {
	var w io.Writer = os.Stderr
	if file != "" {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("can't open the log file: %w", err)
		}
		w = f
	}
	opts := &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Value.Kind() == slog.KindDuration {
			// "1.5s", not JSON's nanoseconds.
			return slog.String(a.Key, a.Value.Duration().String())
		}
		return a
	}}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("bad --log-format %q: want text or json", format)
}
