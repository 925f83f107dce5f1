package config

// ErrEvictionPolicy is lockkv's own: it never evicts keys, so CONFIG SET
// and a config file refuse a maxmemory limit with any other policy than
// noeviction. (engine's errors.go names it beside the other error texts.)
const ErrEvictionPolicy = "lockkv never evicts keys: maxmemory can only be set with maxmemory-policy noeviction"
