package engine

import "net"

// Who may connect and who may run DEBUG: Redis 7.0's protected mode
// (networking.c clientAcceptHandler) and its protected actions
// (server.c allowProtectedAction), which lockkv follows; the values of
// the protected-action settings and their check are config's.

// IsLocalAddr reports whether a client's address ("ip:port") is Redis's
// local client: 127.0.0.1 or ::1, compared as text as islocalClient does
// (127.0.0.2 is not local). lockkv has no unix sockets.
func IsLocalAddr(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	return host == "127.0.0.1" || host == "::1"
}

// protectedModeDenies decides, when a client connects, whether protected
// mode turns it away (Redis 7.0.15's clientAcceptHandler): protected-mode
// is on, the default user has no password, and the client is not local.
// Unlike Redis 6, 7.0 does not look at bind: listening on one explicit
// address does not lift the protection (checked against redis-server
// 7.0.15 bound to a non-loopback address).
func (e *Engine) protectedModeDenies(remote string) bool {
	return e.Config.ProtectedMode && e.Config.RequirePass == "" && !IsLocalAddr(remote)
}
