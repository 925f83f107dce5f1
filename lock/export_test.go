package lock

// Redisson's own scripts, for the tests that play a Java service running
// Redisson 3.27.0: it sends these bytes with EVAL (Redisson's default,
// useScriptCache off) and its own KEYS and ARGV.
var (
	RedissonLockAcquire  = scriptLockAcquire
	RedissonLockRelease  = scriptLockRelease
	RedissonWriteAcquire = scriptWriteAcquire
	RedissonWriteRelease = scriptWriteRelease
)

// Holds is how many holds the client keeps.
func (c *Client) Holds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.holds)
}
