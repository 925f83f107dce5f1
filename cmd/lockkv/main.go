// Command lockkv runs a lockkv server.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lockkv/lockkv"
)

func main() {
	var (
		addr       = flag.String("addr", "127.0.0.1:6379", "TCP address to listen on")
		pass       = flag.String("requirepass", "", "password clients must AUTH with")
		databases  = flag.Int("databases", 16, "number of databases")
		maxClients = flag.Int("maxclients", 10000, "maximum number of connected clients")
		logLevel   = flag.String("log-level", "info", "log level: debug, info, warn, error")
	)
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
		fmt.Fprintf(os.Stderr, "lockkv: bad --log-level %q: %v\n", *logLevel, err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	srv := lockkv.NewServer(lockkv.Config{
		Addr:        *addr,
		RequirePass: *pass,
		Databases:   *databases,
		MaxClients:  *maxClients,
		Logger:      log,
	})
	// Catch signals before listening: a signal that arrives once clients
	// can connect must shut down cleanly, not kill the process.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	if err := srv.Start(); err != nil {
		log.Error("cannot start", "err", err)
		os.Exit(1)
	}
	select {
	case s := <-sig:
		log.Info("shutting down", "signal", s.String())
	case <-srv.Done():
		log.Info("shut down by SHUTDOWN")
	}
	if err := srv.Close(); err != nil {
		log.Error("close", "err", err)
		os.Exit(1)
	}
}
