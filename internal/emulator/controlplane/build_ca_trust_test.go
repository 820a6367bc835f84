package controlplane_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// A CA certificate a build step drops in /usr/local/share/ca-certificates is
// trusted by the template's sandboxes, as E2B's builds end with
// update-ca-certificates; the host's own bundle is left as it was.
func TestBuildTrustsCACertificatesItsStepsAdd(t *testing.T) {
	t.Parallel()
	const hostBundle = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := exec.LookPath("update-ca-certificates"); err != nil {
		t.Skip("the host's base root has no update-ca-certificates, so builds cannot refresh the bundle")
	}
	hostBefore, err := os.ReadFile(hostBundle)
	if err != nil {
		t.Skipf("the host has no Debian CA bundle to start from: %v", err)
	}
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: 20 * time.Second})
	if !c.Srv.PrivateRoots() {
		t.Skip("without private roots a sandbox's /etc is the host's, which builds never rewrite")
	}
	caPEM, serverCert := testCA(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("trusted\n"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	b := c.RequestBuild(map[string]any{"name": "ca-trust"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": []map[string]any{
		{"type": "RUN", "args": []string{"printf '%s' '" + string(caPEM) + "' > /usr/local/share/ca-certificates/emulator-test-ca.crt", "root"}},
	}})
	res := c.WaitBuild(b)
	if res.Status != store.BuildReady {
		t.Fatalf("build %s: %+v\n%s", res.Status, res.Reason, emulatortest.LogText(res.LogEntries))
	}
	sb := c.Create(map[string]any{"templateID": "ca-trust"})
	if got := c.MustRun(sb, "curl -sS --fail --noproxy '*' "+srv.URL); got != "trusted\n" {
		t.Fatalf("curl in the sandbox got %q", got)
	}
	hostAfter, err := os.ReadFile(hostBundle)
	if err != nil || !bytes.Equal(hostBefore, hostAfter) {
		t.Fatalf("the host's bundle changed (%v)", err)
	}
	// The base template never saw the build's CA.
	base := c.Create(map[string]any{"templateID": "base"})
	if r := c.Run(base, "curl -sS --fail --noproxy '*' "+srv.URL); r.End["exitCode"] == nil {
		t.Fatalf("a sandbox of base trusts the build's CA: %+v", r)
	}
}

// testCA makes a CA (PEM) and a certificate for 127.0.0.1 it signed.
func testCA(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2b emulator test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}
