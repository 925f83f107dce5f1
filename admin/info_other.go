//go:build !linux

package admin

import "runtime"

// osName is INFO's os field.
func osName() string { return runtime.GOOS + " " + runtime.GOARCH }
