//go:build !linux

package server

import "net"

// rawWriter is Linux's: elsewhere the writer goroutine writes all output.
type rawWriter struct{}

func newRawWriter(net.Conn) *rawWriter { return nil }

func (*rawWriter) writeOnce([]byte) (int, error) { panic("unreachable") }

const isLinux = false
