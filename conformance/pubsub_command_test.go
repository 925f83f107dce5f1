package conformance

import "testing"

func TestPubSubCommandInfo(t *testing.T) {
	p := NewPair(t)
	for _, c := range []string{"publish", "subscribe", "unsubscribe", "psubscribe", "punsubscribe",
		"spublish", "ssubscribe", "sunsubscribe", "pubsub|channels", "pubsub|numpat",
		"pubsub|numsub", "pubsub|shardchannels", "pubsub|shardnumsub", "pubsub|help",
		"multi", "exec", "discard", "watch", "unwatch",
		"client|tracking", "client|caching", "client|trackinginfo", "client|getredir"} {
		p.Do("COMMAND", "INFO", c)
	}
	p.Do("COMMAND", "GETKEYS", "watch", "a", "b")
	p.Do("COMMAND", "GETKEYS", "ssubscribe", "a", "b")
	p.Do("COMMAND", "GETKEYS", "sunsubscribe", "a")
	p.Do("COMMAND", "GETKEYS", "spublish", "a", "b")
	p.Do("COMMAND", "GETKEYS", "publish", "a", "b")
	p.Do("COMMAND", "GETKEYSANDFLAGS", "watch", "a", "b")
}
