//go:build !linux

package server

import "net"

// aeLoop is the event loop of aeloop_linux.go: Linux only.
type aeLoop struct{}

func (s *Server) startAE() bool        { return false }
func (l *aeLoop) run()                 {}
func (l *aeLoop) wake()                {}
func (l *aeLoop) adopt(net.Conn) error { return nil }
