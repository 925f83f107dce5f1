package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// Client TLS, with Redis's settings: tls-cert-file and tls-key-file are
// the server's certificate, tls-ca-cert-file the authority client
// certificates must come from, tls-auth-clients whether one is required
// (yes), checked when given (optional) or ignored (no). TLS 1.2 at least.

// tlsAuthClients returns the effective tls-auth-clients: as configured,
// else Redis's default yes, which needs a CA file; without one, no.
func (cfg *Config) tlsAuthClients() string {
	if cfg.TLSAuthClients != "" {
		return cfg.TLSAuthClients
	}
	if cfg.TLSCACertFile != "" {
		return "yes"
	}
	return "no"
}

// tlsEnabled reports whether the server has a TLS listener.
func (cfg *Config) tlsEnabled() bool { return cfg.TLSCertFile != "" || cfg.TLSKeyFile != "" }

// loadTLS reads the certificate, key and CA files: the server's
// configuration for the TLS listener and, for a node that serves only TLS,
// the one it dials the other members' client ports with (its own
// certificate as the client certificate, the CA for theirs). Both files
// are set (lockkv.NewServer checked).
func (cfg *Config) loadTLS() (server, peer *tls.Config, err error) {
	cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("lockkv: TLS certificate: %w", err)
	}
	var pool *x509.CertPool
	if cfg.TLSCACertFile != "" {
		pem, err := os.ReadFile(cfg.TLSCACertFile)
		if err != nil {
			return nil, nil, fmt.Errorf("lockkv: TLS CA file: %w", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("lockkv: TLS CA file %s holds no PEM certificate", cfg.TLSCACertFile)
		}
	}
	server = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
	}
	switch auth := cfg.tlsAuthClients(); auth {
	case "yes", "optional":
		if pool == nil {
			return nil, nil, fmt.Errorf("lockkv: tls-auth-clients %s needs a CA file (--tls-ca-cert-file) to verify client certificates", auth)
		}
		server.ClientAuth = tls.RequireAndVerifyClientCert
		if auth == "optional" {
			server.ClientAuth = tls.VerifyClientCertIfGiven
		}
	default: // "no"; lockkv.NewServer refused any other value
		server.ClientAuth = tls.NoClientCert
	}
	peer = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		RootCAs:      pool, // nil: the system's roots
	}
	return server, peer, nil
}
