package commands

// Config holds the settings lockkv honours or reports. CONFIG GET/SET read
// and write it through the settings table (server.go family); every field
// here has Redis 7.0's default in NewConfig.
type Config struct {
	Databases       int
	RequirePass     string
	MaxClients      int
	NotifyFlags     NotifyClass
	ProtoMaxBulkLen int64 // proto-max-bulk-len
	Timeout         int   // idle client timeout, seconds
	Hz              int

	// Encoding thresholds (OBJECT ENCODING follows them).
	HashMaxListpackEntries int // hash-max-listpack-entries
	HashMaxListpackValue   int // hash-max-listpack-value
	SetMaxIntsetEntries    int // set-max-intset-entries
	ZSetMaxListpackEntries int // zset-max-listpack-entries
	ZSetMaxListpackValue   int // zset-max-listpack-value
	ListMaxListpackSize    int // list-max-listpack-size
	ListCompressDepth      int // list-compress-depth

	// LuaTimeLimit is busy-reply-threshold (lua-time-limit), milliseconds.
	LuaTimeLimit int64
}

// NewConfig returns Redis 7.0's defaults.
func NewConfig() *Config {
	return &Config{
		Databases:              16,
		MaxClients:             10000,
		ProtoMaxBulkLen:        512 * 1024 * 1024,
		Hz:                     10,
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		ListMaxListpackSize:    -2,
		LuaTimeLimit:           5000,
	}
}
