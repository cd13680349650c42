package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"strings"

	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// MaxPEMFileBytes bounds a certificate or key file. A system CA bundle is
// about 200 KiB; a path to /dev/zero or a log file by mistake is refused
// rather than read into memory.
const MaxPEMFileBytes = 1 << 20

// tlsConfig builds the client TLS configuration from the CA file and the
// client certificate and key files (each "" for none). Every file is read
// now, checked, and named in the error with its key; jobtrace never falls
// back to the system's CAs or to no client certificate when a file is bad.
func (r *resolver) tlsConfig(ca, cert, key setting) (*tls.Config, *SettingError) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca.value != "" {
		pem, fe := r.read(ca)
		if fe != nil {
			return nil, fe
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, bad(ca.key, "%s holds no PEM certificate", ca.value)
		}
		cfg.RootCAs = pool
	}
	switch {
	case cert.value != "" && key.value != "":
		certPEM, fe := r.read(cert)
		if fe != nil {
			return nil, fe
		}
		keyPEM, fe := r.read(key)
		if fe != nil {
			return nil, fe
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, bad(cert.key, "%s with key %s: %v", cert.value, key.value, strings.TrimPrefix(err.Error(), "tls: "))
		}
		cfg.Certificates = []tls.Certificate{pair}
	case cert.value != "":
		return nil, bad(cert.key, "%s is given without a client key", cert.value)
	case key.value != "":
		return nil, bad(key.key, "%s is given without a client certificate", key.value)
	}
	return cfg, nil
}

// read reads a PEM file once, bounded by MaxPEMFileBytes.
func (r *resolver) read(s setting) ([]byte, *SettingError) {
	if b, ok := r.pem[s.value]; ok {
		return b, nil
	}
	b, err := regularfile.Read(s.value, MaxPEMFileBytes)
	if err != nil {
		return nil, bad(s.key, "%s: %v", s.value, err)
	}
	r.pem[s.value] = b
	return b, nil
}
