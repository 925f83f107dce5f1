package conformance

import "testing"

// TestServerRESP3: the connection and server commands under RESP3.
func TestServerRESP3(t *testing.T) {
	p := Connect(t)
	p.Do("HELLO", "3")
	p.Do("SET", "r3key", "v")
	for _, c := range [][]string{
		{"CONFIG", "GET", "maxmemory"},
		{"CONFIG", "GET", "nosuch"},
		{"CONFIG", "GET", "maxmemory-p*"},
		{"CONFIG", "HELP"},
		{"COMMAND", "INFO", "get", "nosuch"},
		{"COMMAND", "INFO", "config|get"},
		{"COMMAND", "GETKEYSANDFLAGS", "get", "a"},
		{"COMMAND", "GETKEYS", "get", "a"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "get"},
		{"ROLE"},
		{"OBJECT", "ENCODING", "r3key"},
		{"OBJECT", "ENCODING", "nosuch"},
		{"OBJECT", "REFCOUNT", "nosuch"},
		{"OBJECT", "FREQ", "nosuch"},
		{"MEMORY", "USAGE", "nosuch"},
		{"MEMORY", "HELP"},
		{"CLIENT", "GETNAME"},
		{"CLIENT", "LIST", "ID", "0"},
		{"CLIENT", "LIST", "TYPE", "master"},
		{"WAIT", "0", "0"},
		{"DEBUG", "OBJECT", "nosuch"},
		{"INFO", "nosuch"},
		{"CLIENT", "REPLY", "ON"},
		{"RESET"},
		{"CLIENT", "GETNAME"},
	} {
		p.Do(c...)
	}
	p.DoShape("HELLO", "3")
	p.DoShape("TIME")
	p.DoShape("MEMORY", "STATS")
	p.DoShape("MEMORY", "DOCTOR")
	p.DoShape("LASTSAVE")
	p.DoShape("COMMAND", "COUNT")
	p.DoShape("CLIENT", "INFO")
	p.DoShape("MEMORY", "USAGE", "r3key")
}
