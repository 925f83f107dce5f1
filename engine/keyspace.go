package engine

// signalModified is Redis's signalModifiedKey: a write to key breaks the
// WATCH of every client watching it and invalidates client-side caches.
func (e *Engine) signalModified(db int, key string) {
	e.touchWatched(db, key)
	e.trackingInvalidate(key)
}

// signalNeeded reports whether signalModified can have any effect: some
// key is watched or client tracking holds state. Keep it in step with
// signalModified (Ctx.Modified skips the call, and copying the key, when
// it is false).
func (e *Engine) signalNeeded() bool {
	return len(e.watches.keys) > 0 || e.tracking.table != nil
}

func (e *Engine) initFeatures() {
	e.initPubSub()
	e.initWatches()
	e.initBlocking()
	e.initTracking()
}
