package commands

// signalModified is Redis's signalModifiedKey: a write to key breaks the
// WATCH of every client watching it and invalidates client-side caches.
func (e *Engine) signalModified(db int, key string) {
	e.touchWatched(db, key)
	e.trackingInvalidate(key)
}

func (e *Engine) initFeatures() {
	e.initPubSub()
	e.initWatches()
	e.initBlocking()
	e.initTracking()
}
