package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// readyMain is "lockkv ready": it asks a server's metrics port for
// /ready and exits 0 when it answers 200, 1 otherwise with the reason the
// server gave (not a member, no leader, lagging) or the error. It is the
// container health check (Dockerfile), which has no curl: unlike "lockkv
// ping", it fails on a cluster node that answers PING but cannot serve.
func readyMain(args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("lockkv ready", flag.ContinueOnError)
	addr := fs.String("metrics-addr", "127.0.0.1:9121", "the server's --metrics-addr")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "lockkv ready: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	url := "http://" + *addr + "/ready"
	c := &http.Client{Timeout: *timeout}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv ready: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	msg := strings.TrimSpace(string(body))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "lockkv ready %s: %s: %s\n", *addr, resp.Status, msg)
		return 1
	}
	fmt.Fprintln(stdout, msg)
	return 0
}
