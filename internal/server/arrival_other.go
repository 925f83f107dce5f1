//go:build !linux

package server

import "net"

// arrivalReader is Linux's; elsewhere a request's arrival is when its
// reader read it.
type arrivalReader struct{}

func newArrivalReader(net.Conn) *arrivalReader { return nil }

func (*arrivalReader) Read([]byte) (int, int64, error) { panic("unreachable") }
