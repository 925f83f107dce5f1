//go:build !linux

package server

import (
	"net"
	"syscall"
)

// rawWriter is Linux's: elsewhere the writer goroutine writes all output.
func rawWriter(net.Conn) syscall.RawConn { return nil }

func writeOnce(syscall.RawConn, []byte) (int, error) { panic("unreachable") }
