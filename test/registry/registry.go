// Package registry serves goreleaser's release of the provider through Terraform's
// provider registry protocol (service discovery, versions, download with SHA256SUMS,
// its signature and the signing keys) over HTTPS, so a real `terraform init` or
// `tofu init` installs the provider the way users do. Its tests drive that install,
// releases altered on purpose, and upgrades between two releases.
package registry

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ProjectName is the prefix of every release file goreleaser writes.
const ProjectName = "terraform-provider-e2b"

// Release is one version as goreleaser wrote it into a dist folder.
type Release struct {
	Version   string
	Dir       string
	Protocols []string          // from the registry manifest
	Archives  map[string]string // "os_arch" -> archive file name
	Shasums   map[string]string // archive file name -> SHA-256 from SHA256SUMS
}

// SumsName is the checksum file's name; SumsName()+".sig" is its signature.
func (r *Release) SumsName() string { return fmt.Sprintf("%s_%s_SHA256SUMS", ProjectName, r.Version) }

// LoadRelease reads the release of version in dir: SHA256SUMS (which must list the
// manifest too, with its checksum) and the manifest's protocol versions.
func LoadRelease(dir, version string) (*Release, error) {
	r := &Release{Version: version, Dir: dir, Archives: map[string]string{}, Shasums: map[string]string{}}
	f, err := os.Open(filepath.Join(dir, r.SumsName()))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	prefix := fmt.Sprintf("%s_%s_", ProjectName, version)
	manifest := prefix + "manifest.json"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", r.SumsName(), sc.Text())
		}
		r.Shasums[name] = sum
		if platform, ok := strings.CutSuffix(strings.TrimPrefix(name, prefix), ".zip"); ok && strings.HasPrefix(name, prefix) {
			r.Archives[platform] = name
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, ok := r.Shasums[manifest]; !ok {
		return nil, fmt.Errorf("%s does not list %s", r.SumsName(), manifest)
	}
	if len(r.Archives) == 0 {
		return nil, fmt.Errorf("%s lists no %s*.zip archive", r.SumsName(), prefix)
	}
	var m struct {
		Version  int `json:"version"`
		Metadata struct {
			ProtocolVersions []string `json:"protocol_versions"`
		} `json:"metadata"`
	}
	b, err := os.ReadFile(filepath.Join(dir, manifest))
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r.Shasums[manifest] {
		return nil, fmt.Errorf("%s does not match its line in %s", manifest, r.SumsName())
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", manifest, err)
	}
	if m.Version != 1 || len(m.Metadata.ProtocolVersions) == 0 {
		return nil, fmt.Errorf("%s: want version 1 with protocol_versions, got %s", manifest, b)
	}
	r.Protocols = m.Metadata.ProtocolVersions
	return r, nil
}

// Fault makes the registry serve one part of a release altered.
type Fault int

const (
	Honest           Fault = iota
	AlteredArchive         // one byte of the zip changed; SHA256SUMS and the registry's shasum unchanged
	AlteredSignature       // one byte of SHA256SUMS.sig changed
	OtherKey               // the signing keys offered are another key's
)

// Server is a provider registry for one provider (namespace/type) over HTTPS.
type Server struct {
	Host      string // localhost:PORT, the hostname part of source addresses
	Namespace string
	Type      string

	srv        *httptest.Server
	mu         sync.Mutex
	releases   []*Release
	key, other Key
	fault      Fault
}

// Key is a GPG public key as the registry protocol carries it.
type Key struct {
	ID    string // the key ID: the fingerprint's last 16 hex digits
	Armor string // ASCII-armored public key
}

// Start serves releases (none yet: see Add) whose SHA256SUMS are signed by key; the
// fault OtherKey offers other instead. It returns the server and the file holding the
// CA that issued its certificate (for the CLI's SSL_CERT_FILE).
func Start(t testing.TB, namespace, typ string, key, other Key) (*Server, string) {
	t.Helper()
	s := &Server{Namespace: namespace, Type: typ, key: key, other: other}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	cert, err := newTLSCert(caFile, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewUnstartedServer(s.handler())
	s.srv.TLS = cert
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	_, port, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	s.Host = "localhost:" + port
	return s, caFile
}

// Add offers a release.
func (s *Server) Add(r *Release) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releases = append(s.releases, r)
}

// SetFault changes what later requests are served.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Source is the provider's source address on this registry.
func (s *Server) Source() string { return s.Host + "/" + s.Namespace + "/" + s.Type }

func (s *Server) base() string { return "https://" + s.Host }

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/terraform.json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]string{"providers.v1": "/v1/providers/"})
	})
	mux.HandleFunc("GET /v1/providers/{ns}/{type}/versions", func(w http.ResponseWriter, r *http.Request) {
		if !s.ours(w, r) {
			return
		}
		type platform struct {
			OS   string `json:"os"`
			Arch string `json:"arch"`
		}
		type version struct {
			Version   string     `json:"version"`
			Protocols []string   `json:"protocols"`
			Platforms []platform `json:"platforms"`
		}
		out := struct {
			Versions []version `json:"versions"`
		}{Versions: []version{}}
		s.mu.Lock()
		for _, rel := range s.releases {
			v := version{Version: rel.Version, Protocols: rel.Protocols}
			for p := range rel.Archives {
				goos, arch, _ := strings.Cut(p, "_")
				v.Platforms = append(v.Platforms, platform{goos, arch})
			}
			out.Versions = append(out.Versions, v)
		}
		s.mu.Unlock()
		writeJSON(w, out)
	})
	mux.HandleFunc("GET /v1/providers/{ns}/{type}/{version}/download/{os}/{arch}", func(w http.ResponseWriter, r *http.Request) {
		if !s.ours(w, r) {
			return
		}
		rel := s.release(r.PathValue("version"))
		name := ""
		if rel != nil {
			name = rel.Archives[r.PathValue("os")+"_"+r.PathValue("arch")]
		}
		if name == "" {
			http.Error(w, `{"errors":["Not Found"]}`, http.StatusNotFound)
			return
		}
		s.mu.Lock()
		key := s.key
		if s.fault == OtherKey {
			key = s.other
		}
		s.mu.Unlock()
		files := s.base() + "/files/" + rel.Version + "/"
		writeJSON(w, map[string]any{
			"protocols":             rel.Protocols,
			"os":                    r.PathValue("os"),
			"arch":                  r.PathValue("arch"),
			"filename":              name,
			"download_url":          files + name,
			"shasums_url":           files + rel.SumsName(),
			"shasums_signature_url": files + rel.SumsName() + ".sig",
			"shasum":                rel.Shasums[name],
			"signing_keys": map[string]any{
				"gpg_public_keys": []map[string]any{{"key_id": key.ID, "ascii_armor": key.Armor}},
			},
		})
	})
	mux.HandleFunc("GET /files/{version}/{name}", func(w http.ResponseWriter, r *http.Request) {
		rel := s.release(r.PathValue("version"))
		name := r.PathValue("name")
		if rel == nil || strings.ContainsAny(name, `/\`) {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(rel.Dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		fault := s.fault
		s.mu.Unlock()
		if (fault == AlteredArchive && strings.HasSuffix(name, ".zip")) ||
			(fault == AlteredSignature && strings.HasSuffix(name, ".sig")) {
			b[len(b)/2] ^= 0x01
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(b)
	})
	return mux
}

func (s *Server) ours(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("ns") != s.Namespace || r.PathValue("type") != s.Type {
		http.Error(w, `{"errors":["Not Found"]}`, http.StatusNotFound)
		return false
	}
	return true
}

func (s *Server) release(version string) *Release {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.releases {
		if r.Version == version {
			return r
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
