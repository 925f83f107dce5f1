//go:build !linux

package server

// aeModes: the event loop is Linux only.
var aeModes = []string{"off"}
