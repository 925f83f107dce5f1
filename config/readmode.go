package config

// Read modes (Config.ReadMode).
const (
	ReadLinearizable = "linearizable"
	ReadLease        = "lease"
	ReadStale        = "stale"
)
