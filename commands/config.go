package commands

// Config holds the settings lockkv honours. CONFIG GET/SET read and write
// it through the settings table in config_cmd.go.
type Config struct {
	Databases   int
	RequirePass string
	MaxClients  int
	NotifyFlags NotifyClass
	// ProtoMaxBulkLen is proto-max-bulk-len.
	ProtoMaxBulkLen int64
}

// NewConfig returns Redis's defaults.
func NewConfig() *Config {
	return &Config{
		Databases:       16,
		MaxClients:      10000,
		ProtoMaxBulkLen: 512 * 1024 * 1024,
	}
}
