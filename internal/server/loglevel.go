package server

import (
	"context"
	"log/slog"
)

// levelHandler drops records below a level that CONFIG SET loglevel
// moves, in front of the embedder's handler.
type levelHandler struct {
	h     slog.Handler
	level *slog.LevelVar
}

func (l levelHandler) Enabled(ctx context.Context, lv slog.Level) bool {
	return lv >= l.level.Level() && l.h.Enabled(ctx, lv)
}

func (l levelHandler) Handle(ctx context.Context, r slog.Record) error { return l.h.Handle(ctx, r) }

func (l levelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return levelHandler{l.h.WithAttrs(attrs), l.level}
}

func (l levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{l.h.WithGroup(name), l.level}
}
