package admin

import (
	"runtime"
	"syscall"
)

// osName is INFO's os field, from uname as Redis prints it
// ("Linux 6.1.0 x86_64").
func osName() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	return cString8(u.Sysname[:]) + " " + cString8(u.Release[:]) + " " + cString8(u.Machine[:])
}

// cString8 converts a NUL-terminated utsname field (int8 or uint8,
// depending on the platform).
func cString8[T int8 | uint8](a []T) string {
	b := make([]byte, 0, len(a))
	for _, c := range a {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}
