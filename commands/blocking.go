package commands

// blockState tracks clients blocked on keys.
type blockState struct{}

// blockClient is a client's blocked state.
type blockClient struct {
	blocked bool
}

func (e *Engine) initBlocking() {}

func (e *Engine) signalReady(db int, key string) {}

// afterCommand serves clients blocked on keys that became ready.
func (e *Engine) afterCommand() {}

func (e *Engine) unblockClientOnFree(c *Client) {}

func (e *Engine) blockTimeouts(now int64) {}

func (e *Engine) blockNextDeadline() int64 { return 0 }
