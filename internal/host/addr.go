package host

import (
	"fmt"
	"net"
	"strconv"
)

// CheckAddr reports an address a listener could not take: not
// host:port, or a port that is not a number from 0 to 65535 (0: a free
// port). name says which address in the error.
func CheckAddr(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("lockkv: bad %s %q: want host:port", name, addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("lockkv: bad %s %q: the port must be a number from 0 to 65535", name, addr)
	}
	return nil
}
