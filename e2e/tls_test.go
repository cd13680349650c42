package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pki is a certificate authority made for one test, with a server
// certificate for 127.0.0.1 and localhost and a client certificate, all as
// PEM files.
type pki struct {
	CA                    string // the CA's certificate
	ServerCert, ServerKey string
	ClientCert, ClientKey string
}

// newPKI writes a CA, a server and a client certificate signed by it, with
// their keys, to dir.
func newPKI(t *testing.T, dir, name string) pki {
	t.Helper()
	now := time.Now()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name + " CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	p := pki{
		CA:         filepath.Join(dir, name+"-ca.pem"),
		ServerCert: filepath.Join(dir, name+"-server.pem"),
		ServerKey:  filepath.Join(dir, name+"-server-key.pem"),
		ClientCert: filepath.Join(dir, name+"-client.pem"),
		ClientKey:  filepath.Join(dir, name+"-client-key.pem"),
	}
	writePEM(t, p.CA, "CERTIFICATE", caDER)
	leaf := func(serial int64, tmpl *x509.Certificate, certFile, keyFile string) {
		key := newKey(t)
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(24*time.Hour)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certFile, "CERTIFICATE", der)
		kder, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, keyFile, "PRIVATE KEY", kder)
	}
	leaf(2, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, p.ServerCert, p.ServerKey)
	leaf(3, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "jobtrace e2e client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.ClientCert, p.ClientKey)
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsEnv is the environment for jobtrace exporting to endpoint with
// protocol, without OTEL_EXPORTER_OTLP_INSECURE, plus extra.
func tlsEnv(endpoint, protocol string, extra ...string) []string {
	var env []string
	for _, kv := range jobEnv(endpoint, protocol, extra...) {
		if !strings.HasPrefix(kv, "OTEL_EXPORTER_OTLP_INSECURE=") {
			env = append(env, kv)
		}
	}
	return env
}

// tap is a TCP proxy in front of a server that records the first byte each
// client sends: 0x16 opens a TLS handshake, anything else is plain text.
type tap struct {
	Addr string
	ln   net.Listener

	mu    sync.Mutex
	first []byte
	wg    sync.WaitGroup
}

func startTap(t *testing.T, upstream string) *tap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tap{Addr: ln.Addr().String(), ln: ln}
	var conns sync.Map
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Store(c, true)
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer c.Close()
				var b [1]byte
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				if _, err := io.ReadFull(c, b[:]); err != nil {
					return
				}
				c.SetReadDeadline(time.Time{})
				p.mu.Lock()
				p.first = append(p.first, b[0])
				p.mu.Unlock()
				up, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				conns.Store(up, true)
				defer up.Close()
				if _, err := up.Write(b[:]); err != nil {
					return
				}
				go func() { io.Copy(c, up); c.Close() }()
				io.Copy(up, c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		conns.Range(func(k, _ any) bool { k.(net.Conn).Close(); return true })
		p.wg.Wait()
	})
	return p
}

// FirstBytes returns the first byte of each connection so far.
func (p *tap) FirstBytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.first...)
}

// tlsJob is a short job with phases from output markers and the socket.
const tlsJob = `echo BEGIN_PHASE build; jobtrace phase begin compile; jobtrace phase end compile; echo END_PHASE build; exit 3`

// TestTLSToTheCollector exports to a real Collector serving TLS, over
// OTLP/gRPC and OTLP/HTTP: with its CA the spans arrive; with mutual TLS
// they arrive when jobtrace presents its client certificate and not
// without; with a server certificate jobtrace does not trust, the first
// export fails with a certificate error, nothing is ever sent in plain
// text, the spans stay in the spool, and `jobtrace replay` with the right
// CA delivers each of them once.
func TestTLSToTheCollector(t *testing.T) {
	requireJobtrace(t)
	dir := t.TempDir()
	good := newPKI(t, dir, "good")
	other := newPKI(t, dir, "other")
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(strings.ReplaceAll(protocol, "/", "-"), func(t *testing.T) {
			t.Run("trusted CA", func(t *testing.T) {
				c := StartFileCollectorTLS(t, ServerTLS{CertFile: good.ServerCert, KeyFile: good.ServerKey})
				out := filepath.Join(t.TempDir(), "out")
				res := runJobtrace(t, tlsEnv(c.Endpoint("https", protocol), protocol,
					"OTEL_EXPORTER_OTLP_CERTIFICATE="+good.CA),
					"run", "--out", out, "--name", "tls", "--", "sh", "-c", tlsJob)
				checkDelivered(t, c, res, out, "tls")
			})
			t.Run("mutual TLS", func(t *testing.T) {
				c := StartFileCollectorTLS(t, ServerTLS{CertFile: good.ServerCert, KeyFile: good.ServerKey, ClientCAFile: good.CA})
				// localhost rather than 127.0.0.1: the name is checked too.
				endpoint := strings.Replace(c.Endpoint("https", protocol), "127.0.0.1", "localhost", 1)
				out := filepath.Join(t.TempDir(), "out")
				res := runJobtrace(t, tlsEnv(endpoint, protocol,
					"OTEL_EXPORTER_OTLP_CERTIFICATE="+good.CA,
					"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE="+good.ClientCert,
					"OTEL_EXPORTER_OTLP_CLIENT_KEY="+good.ClientKey),
					"run", "--out", out, "--name", "mtls", "--", "sh", "-c", tlsJob)
				checkDelivered(t, c, res, out, "mtls")

				// Without a client certificate the collector refuses the
				// connection; the spans wait in the spool.
				out2 := filepath.Join(t.TempDir(), "out")
				res = runJobtrace(t, tlsEnv(endpoint, protocol, "OTEL_EXPORTER_OTLP_CERTIFICATE="+good.CA),
					"run", "--out", out2, "--name", "mtls", "--export-timeout", "2s", "--", "sh", "-c", tlsJob)
				t.Logf("without a client certificate: stderr:\n%s", res.Stderr)
				if res.ExitCode != 3 || !strings.Contains(res.Stderr, "pending") {
					t.Errorf("exit %d, want the job's 3 and spans pending", res.ExitCode)
				}
				before := len(spansOrFail(t, c))
				rep := runJobtrace(t, tlsEnv(endpoint, protocol,
					"OTEL_EXPORTER_OTLP_CERTIFICATE="+good.CA,
					"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE="+good.ClientCert,
					"OTEL_EXPORTER_OTLP_CLIENT_KEY="+good.ClientKey), "replay", out2)
				t.Logf("replay with the client certificate: exit %d, stderr:\n%s", rep.ExitCode, rep.Stderr)
				if rep.ExitCode != 0 {
					t.Errorf("replay exited %d", rep.ExitCode)
				}
				want, _ := jobSpans(t, out2, "mtls")
				got := c.SettledSpans(t, before+len(want))
				checkReceivedOnce(t, got[before:], want)
			})
			t.Run("untrusted server certificate", func(t *testing.T) {
				c := StartFileCollectorTLS(t, ServerTLS{CertFile: good.ServerCert, KeyFile: good.ServerKey})
				addr := c.HTTP
				if protocol == "grpc" {
					addr = c.GRPC
				}
				p := startTap(t, addr)
				for _, ca := range []struct{ name, file string }{{"another CA", other.CA}, {"the system's CAs", ""}} {
					base := len(spansOrFail(t, c))
					tapped := len(p.FirstBytes())
					out := filepath.Join(t.TempDir(), "out")
					extra := []string{}
					if ca.file != "" {
						extra = append(extra, "OTEL_EXPORTER_OTLP_CERTIFICATE="+ca.file)
					}
					start := time.Now()
					res := runJobtrace(t, tlsEnv("https://"+p.Addr, protocol, extra...),
						"run", "--out", out, "--name", "untrusted", "--export-timeout", "2s", "--", "sh", "-c", tlsJob)
					t.Logf("trusting %s: jobtrace took %s; stderr:\n%s", ca.name, time.Since(start).Round(time.Millisecond), res.Stderr)
					if res.ExitCode != 3 {
						t.Errorf("trusting %s: exit %d, want the job's 3", ca.name, res.ExitCode)
					}
					first := firstExportWarning(res.Stderr)
					if !strings.Contains(first, "certificate") {
						t.Errorf("trusting %s: the first export warning does not name the certificate: %q", ca.name, first)
					}
					want, _ := jobSpans(t, out, "untrusted")
					if !strings.Contains(res.Stderr, "spans pending") {
						t.Errorf("trusting %s: no spans reported pending", ca.name)
					}
					if n := len(spansOrFail(t, c)) - base; n != 0 {
						t.Errorf("trusting %s: the collector received %d spans", ca.name, n)
					}
					if len(p.FirstBytes()) == tapped {
						t.Errorf("trusting %s: jobtrace never connected", ca.name)
					}
					for _, b := range p.FirstBytes()[tapped:] {
						if b != 0x16 {
							t.Errorf("trusting %s: a connection began with %q, not a TLS handshake: plain text", ca.name, b)
						}
					}

					// The spool holds them; replay with the right CA sends them.
					before := len(spansOrFail(t, c))
					rep := runJobtrace(t, tlsEnv(c.Endpoint("https", protocol), protocol,
						"OTEL_EXPORTER_OTLP_CERTIFICATE="+good.CA), "replay", out)
					if rep.ExitCode != 0 || !strings.Contains(rep.Stderr, "0 pending") {
						t.Errorf("replay with the right CA: exit %d, stderr:\n%s", rep.ExitCode, rep.Stderr)
					}
					got := c.SettledSpans(t, before+len(want))
					checkReceivedOnce(t, got[before:], want)
				}
			})
		})
	}
}

// checkDelivered checks that a run of the job named root exited with the
// job's 3 and reported the export, and that the collector wrote each span
// of its spool once.
func checkDelivered(t *testing.T, c *FileCollector, res jobtraceResult, out, root string) {
	t.Helper()
	t.Logf("stderr:\n%s", res.Stderr)
	if res.ExitCode != 3 {
		t.Errorf("exit %d, want the job's 3", res.ExitCode)
	}
	if !strings.Contains(res.Stderr, "exported to https://") {
		t.Errorf("no successful export reported")
	}
	want, _ := jobSpans(t, out, root)
	checkReceivedOnce(t, c.SettledSpans(t, len(want)), want)
}

// spansOrFail reads what the collector has written so far.
func spansOrFail(t *testing.T, c *FileCollector) []span {
	t.Helper()
	s, err := c.Spans()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// firstExportWarning is the first line of stderr about the export.
func firstExportWarning(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "export") {
			return l
		}
	}
	return ""
}
