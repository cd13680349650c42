package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// tlsConfig builds the client TLS configuration from the certificate files
// in s. Unreadable or empty files are errors that name the file, rather than
// the OTel clients' behaviour of reporting them through the error handler and
// going on without them.
func (s Settings) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.Certificate != "" {
		pem, err := os.ReadFile(s.Certificate)
		if err != nil {
			return nil, fmt.Errorf("%w: certificate: %v", ErrSettings, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: certificate %s: no PEM certificate in it", ErrSettings, s.Certificate)
		}
		cfg.RootCAs = pool
	}
	switch {
	case s.ClientCertificate != "" && s.ClientKey != "":
		cert, err := tls.LoadX509KeyPair(s.ClientCertificate, s.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate %s, key %s: %v", ErrSettings, s.ClientCertificate, s.ClientKey, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case s.ClientCertificate != "":
		return nil, fmt.Errorf("%w: client certificate %s given without a client key", ErrSettings, s.ClientCertificate)
	case s.ClientKey != "":
		return nil, fmt.Errorf("%w: client key %s given without a client certificate", ErrSettings, s.ClientKey)
	}
	return cfg, nil
}
