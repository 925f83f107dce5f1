package engine

import (
	"strconv"

	"github.com/lockkv/lockkv/config"
)

// notify publishes a keyspace event as Redis's notifyKeyspaceEvent does:
// "__keyspace@<db>__:<key>" with the event as message, then
// "__keyevent@<db>__:<event>" with the key as message. The channel names
// are built in a reused buffer: nothing is allocated per event.
func (e *Engine) notify(db int, class config.NotifyClass, event, key string) {
	flags := e.Config.NotifyFlags
	if flags&class == 0 {
		return
	}
	buf := e.pubsub.notifyBuf[:0]
	if flags&config.NotifyKeyspace != 0 {
		buf = append(buf, "__keyspace@"...)
		buf = strconv.AppendInt(buf, int64(db), 10)
		buf = append(buf, "__:"...)
		buf = append(buf, key...)
		publishMessage(e, buf, event, false)
	}
	if flags&config.NotifyKeyevent != 0 {
		buf = append(buf[:0], "__keyevent@"...)
		buf = strconv.AppendInt(buf, int64(db), 10)
		buf = append(buf, "__:"...)
		buf = append(buf, event...)
		publishMessage(e, buf, key, false)
	}
	e.pubsub.notifyBuf = buf
}

// ReadMiss is what Redis's lookupKeyRead does for a missing key: count the
// miss and fire the "keymiss" event (class 'm').
func (c *Ctx) ReadMiss(key []byte) {
	c.E.Stats.KeyspaceMisses++
	if c.E.Config.NotifyFlags&config.NotifyKeyMiss != 0 {
		c.Notify(config.NotifyKeyMiss, "keymiss", key)
	}
}
