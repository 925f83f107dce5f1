package commands

// pubsubState holds channel and pattern subscriptions.
type pubsubState struct {
	channels map[string]map[*Client]struct{}
}

// subClient is a client's subscriptions.
type subClient struct {
	channels map[string]struct{}
	patterns map[string]struct{}
	shard    map[string]struct{}
}

func (s *subClient) count() int {
	return len(s.channels) + len(s.patterns) + len(s.shard)
}

func (e *Engine) initPubSub() {
	e.pubsub.channels = map[string]map[*Client]struct{}{}
}

// publish delivers message to the subscribers of channel and returns how
// many received it.
func (e *Engine) publish(channel, message string) int {
	n := 0
	for cl := range e.pubsub.channels[channel] {
		w := e.Writer(cl)
		w.Push(3)
		w.BulkString("message")
		w.BulkString(channel)
		w.BulkString(message)
		n++
	}
	return n
}

func (e *Engine) pubsubFreeClient(c *Client) {
	for ch := range c.sub.channels {
		delete(e.pubsub.channels[ch], c)
		if len(e.pubsub.channels[ch]) == 0 {
			delete(e.pubsub.channels, ch)
		}
	}
}
