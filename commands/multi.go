package commands

// multiClient is a client's MULTI state.
type multiClient struct {
	active bool
	failed bool
	queue  [][][]byte
}

// watchState maps watched keys to the clients watching them.
type watchState struct {
	keys map[watchKey][]*Client
}

type watchKey struct {
	db  int
	key string
}

func (e *Engine) initWatches() { e.watches.keys = map[watchKey][]*Client{} }

func (e *Engine) touchWatched(db int, key string) {}

func (e *Engine) unwatchAll(c *Client) {}

// queueMulti queues a command inside MULTI. Arguments are copied: the
// network buffer they point into is reused after the pipeline runs.
func (c *Ctx) queueMulti(args [][]byte) {
	cp := make([][]byte, len(args))
	for i, a := range args {
		cp[i] = append([]byte(nil), a...)
	}
	c.C.multi.queue = append(c.C.multi.queue, cp)
	c.W.Status("QUEUED")
}
