package config

// Who may run DEBUG and set protected configs: Redis 7.0's protected
// actions (server.c allowProtectedAction), which lockkv follows.

// Values of enable-debug-command and enable-protected-configs.
const (
	ProtectedNo    = "no"
	ProtectedYes   = "yes"
	ProtectedLocal = "local"
)

var protectedActionValues = []string{ProtectedNo, ProtectedYes, ProtectedLocal}

// ValidProtectedAction reports whether v is no, yes or local, as the
// settings are spelled on the command line (lower case).
func ValidProtectedAction(v string) bool {
	for _, p := range protectedActionValues {
		if v == p {
			return true
		}
	}
	return false
}

// ProtectedActionAllowed is Redis's allowProtectedAction: "yes" admits
// everyone, "local" the clients of the loopback interface (local).
func ProtectedActionAllowed(setting string, local bool) bool {
	return setting == ProtectedYes || (setting == ProtectedLocal && local)
}
