package emulator

import (
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/portproxy"

	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/volumeapi"
)

// defaultStreamIdleTimeout is longer than the 90 s between keepalives that
// envd sends on a quiet stream.
const defaultStreamIdleTimeout = 2 * time.Minute

// defaultTransitionTime is how long a pause or resume lasts (Options.TransitionTime).
const defaultTransitionTime = 250 * time.Millisecond

// Options configures Start. Zero values select the documented defaults.
type Options struct {
	Addr     string // control-plane + envd listener, default "127.0.0.1:0"
	EnvdAddr string // optional second listener for envd only; "" = same listener
	APIKey   string // default: random "e2b_" + 40 hex
	// AccessToken is the one user's access token ("Authorization: Bearer
	// <token>"), which E2B's deprecated operations take (POST /templates,
	// GET /teams, ...); default: random "sk_e2b_" + 40 hex.
	AccessToken string
	MaxLifetime time.Duration // default 1h
	DataDir     string        // sandbox filesystems; default a temp dir removed on Close
	// Isolation "auto" gives each sandbox, where Linux allows it, a private
	// root filesystem (an overlay) in PID, mount and (where the host allows
	// one) user namespaces of its own, and a cgroup (package sandboxos);
	// "userns" does the same but never without a user namespace; "none"
	// keeps the shared layout.
	Isolation string
	// WithoutUserns, for tests only, gives private roots no user namespace
	// (as root, with Isolation "auto"), as on a host that refuses one to root.
	WithoutUserns bool
	// ImageStore is a directory of root filesystems (directories or tar
	// archives) named after images, which fromImage builds start from.
	ImageStore string
	// HostRootImages names images (as fromImage or FROM writes them; "*"
	// for any) that build on the host's base root filesystem when
	// ImageStore lacks them. Any other missing image fails its build.
	HostRootImages []string
	// ReadyTimeout bounds a template's ready command, in its build and in
	// every sandbox created from it; default 60s.
	ReadyTimeout time.Duration
	// AdminToken is what the admin API (/_emulator/*) needs as
	// "Authorization: Bearer <AdminToken>"; default a random one
	// (Server.AdminToken). Sandboxes share the host's network, so any of
	// them can reach the port: the token, which no sandbox can read, is
	// what keeps them from expiring sandboxes or installing faults.
	AdminToken string
	// StreamIdleTimeout bounds how long a stream waits on a peer that neither
	// reads what is sent nor sends anything; default 2m.
	StreamIdleTimeout time.Duration
	// WebhookRetryInterval separates webhook delivery retries; default 10 s (E2B's).
	WebhookRetryInterval time.Duration
	// UploadHeaders are headers every template file upload must send, named in the upload
	// link (storage such as Azure's needs x-ms-blob-type); none by default, as E2B's.
	UploadHeaders map[string]string
	// DiskOnlyResumeOff answers memory=false on connect or resume of a sandbox paused with its
	// memory with E2B's 400 (error_code sandbox_memory_override_disabled), as a cluster where
	// that capability is off does. By default memory=false cold-boots the sandbox.
	DiskOnlyResumeOff bool
	// TransitionTime is how long a pause or a resume of a sandbox lasts. The emulator's own
	// take no time; E2B's take about a second (a pause about 4 s per GiB of memory), and a
	// pause, resume or connect of the sandbox that arrives meanwhile waits for it and answers
	// with its result, or resumes after a pause, as E2B's does. Default 250ms: enough for a
	// burst of requests to meet one transition. Negative for none.
	TransitionTime time.Duration
	// SandboxRoutesV1Off switches off the deprecated v1 create, connect and fork routes
	// (POST /sandboxes, /sandboxes/{id}/connect, /sandboxes/{id}/fork), as an E2B that has
	// retired them; SandboxRoutesV2Off switches off their /v2 routes, as an older self-hosted
	// E2B. A route switched off answers 404 as one E2B does not know.
	SandboxRoutesV1Off, SandboxRoutesV2Off bool
	// ForkTeamCap is the most forks one v2 fork may ask for; default 20 (E2B's).
	ForkTeamCap int
	// Limits are E2B's team limits (create rate, concurrent sandboxes,
	// management rate); off by default.
	Limits Limits
	Logf   func(format string, args ...any)
}

// Server is a running emulator.
type Server struct {
	opts        Options
	apiKey      string
	accessToken string
	seed        []byte
	dataDir     string
	ownsDataDir bool
	isolate     bool
	rootfs      *sandboxos.Rootfs // private root filesystems; nil = shared layout
	logf        func(format string, args ...any)

	ln, envdLn       net.Listener
	httpSrv, envdSrv *http.Server
	volumeMux        *http.ServeMux
	closeOnce        sync.Once
	stopSampler      chan struct{}
	samplerDone      chan struct{}
	cp               *controlplane.API // E2B's control plane, with the registry of live sandboxes
	egress           *egress.Server    // nil when it could not start
	forwarder        *portproxy.Forwarder
	store            *store.Store // templates, secrets, events, webhooks, team samples, volumes
	faults           faultState
	limits           limitState
	counters         counterState
	// validateRequests is always on; the package's own tests turn it off to
	// measure what it costs and to show that the spec test can fail.
	validateRequests atomic.Bool
}

// Start listens on loopback and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.MaxLifetime <= 0 {
		opts.MaxLifetime = time.Hour
	}
	if opts.StreamIdleTimeout <= 0 {
		opts.StreamIdleTimeout = defaultStreamIdleTimeout
	}
	if opts.WebhookRetryInterval <= 0 {
		opts.WebhookRetryInterval = 10 * time.Second
	}
	switch {
	case opts.TransitionTime == 0:
		opts.TransitionTime = defaultTransitionTime
	case opts.TransitionTime < 0:
		opts.TransitionTime = 0
	}
	if opts.Isolation == "" {
		opts.Isolation = "auto"
	}
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("emulator: limits: %w", err)
	}
	if opts.Isolation != "auto" && opts.Isolation != "none" && opts.Isolation != "userns" {
		return nil, fmt.Errorf("emulator: unknown isolation %q (want auto, userns or none)", opts.Isolation)
	}
	s := &Server{
		opts:        opts,
		store:       store.New(),
		logf:        opts.Logf,
		stopSampler: make(chan struct{}),
		samplerDone: make(chan struct{}),
	}
	s.validateRequests.Store(true)
	s.forwarder = portproxy.NewForwarder()
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	s.apiKey = opts.APIKey
	if s.apiKey == "" {
		s.apiKey = "e2b_" + ids.Hex(20)
	}
	s.accessToken = opts.AccessToken
	if s.accessToken == "" {
		s.accessToken = accessTokenPrefix + ids.Hex(20)
	}
	if s.opts.AdminToken == "" {
		s.opts.AdminToken = "e2badm_" + ids.Hex(24)
	}
	s.seed = []byte(ids.Hex(32))
	if err := s.prepareDataDir(); err != nil {
		return nil, err
	}
	s.setupRootfs()
	s.isolate = s.rootfs != nil || (opts.Isolation != "none" && runtime.GOOS == "linux" && os.Geteuid() == 0)
	if s.isolate && s.rootfs == nil {
		if err := os.MkdirAll(envd.VirtualHome, 0o755); err != nil {
			s.isolate = false
			s.logf("emulator: cannot create %s (%v); commands run without mount namespaces", envd.VirtualHome, err)
		}
	}
	if !s.isolate {
		s.logf("emulator: mount namespaces unavailable (isolation=%s, os=%s, euid=%d); commands see the sandbox directory as HOME and TMPDIR instead of private /home/user and /tmp",
			opts.Isolation, runtime.GOOS, os.Geteuid())
	}
	var proxyEnv func(string) map[string]string
	hyperloopIP := "" // the proxy answers for E2B's hyperloop (egress/hyperloop.go)
	// The proxy asks the control plane, made below, about sandboxes.
	policy := func(id, token string) (*egress.Policy, bool) { return s.cp.EgressPolicy(id, token) }
	if eg, err := egress.Start(policy, s.logf); err != nil {
		s.logf("emulator: egress proxy unavailable (%v); network rules are not applied", err)
	} else {
		s.egress = eg
		proxyEnv = func(id string) map[string]string { return eg.Env(id, s.cp.EgressToken(id)) }
		hyperloopIP = egress.HyperloopIP
	}
	machineSettings := &envd.Settings{Isolate: s.isolate, Logf: s.logf, ProxyEnv: proxyEnv, HyperloopIP: hyperloopIP}
	s.setupUsers(machineSettings)
	s.faults.reset(Faults{})
	s.limits.set(opts.Limits)
	s.counters.reset()
	s.cp = controlplane.New(controlplane.Config{
		Store: s.store, DataDir: s.dataDir, Persistent: !s.ownsDataDir, Rootfs: s.rootfs,
		MachineSettings: machineSettings, Seed: s.seed,
		MaxLifetime: opts.MaxLifetime, ReadyTimeout: s.readyTimeout(), WebhookRetryInterval: opts.WebhookRetryInterval,
		ImageStore: opts.ImageStore, HostRootImages: opts.HostRootImages, DiskOnlyResumeOff: opts.DiskOnlyResumeOff,
		TransitionTime:     opts.TransitionTime,
		SandboxRoutesV1Off: opts.SandboxRoutesV1Off, SandboxRoutesV2Off: opts.SandboxRoutesV2Off, ForkTeamCap: opts.ForkTeamCap,
		UploadHeaders: opts.UploadHeaders, APIKey: s.apiKey,
		Logf: s.logf, APIURL: s.APIURL, Admit: s.admit, ForkOverLimit: s.forkCountOverLimit, Count: s.count,
		Started:        func() { s.counters.add(func(c *Counters) { c.SandboxesCreated++ }) },
		WebhookDropped: func() { s.counters.add(func(c *Counters) { c.WebhookDrops++ }) },
	})
	s.volumeMux = volumeapi.NewMux(s.store)

	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		s.abortStart()
		return nil, fmt.Errorf("emulator: listen %s: %w", opts.Addr, err)
	}
	s.ln = ln
	s.httpSrv = &http.Server{Handler: http.HandlerFunc(s.serveMain), ReadHeaderTimeout: 30 * time.Second, Protocols: withH2C()}
	go s.serve(s.httpSrv, ln)
	if opts.EnvdAddr != "" {
		eln, err := net.Listen("tcp", opts.EnvdAddr)
		if err != nil {
			_ = ln.Close()
			s.abortStart()
			return nil, fmt.Errorf("emulator: listen %s: %w", opts.EnvdAddr, err)
		}
		s.envdLn = eln
		s.envdSrv = &http.Server{Handler: http.HandlerFunc(s.serveEnvdOnly), ReadHeaderTimeout: 30 * time.Second, Protocols: withH2C()}
		go s.serve(s.envdSrv, eln)
	}
	go s.runSampler()
	return s, nil
}

// withH2C serves HTTP/1 and HTTP/2 without TLS (prior knowledge), as envd's
// server does: gRPC clients speak only HTTP/2.
func withH2C() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// abortStart undoes a Start that cannot listen.
func (s *Server) abortStart() {
	s.cp.Close()
	s.cp.StopDeliveries()
	s.stopEgress()
	s.removeCgroups()
	s.removeDataDir()
}

// removeCgroups ends what is left in the sandboxes' cgroups and removes them.
func (s *Server) removeCgroups() {
	if s.rootfs != nil && s.rootfs.Cgroups != nil {
		s.rootfs.Cgroups.Remove()
	}
}

// stopEgress closes the egress proxy, if it runs.
func (s *Server) stopEgress() {
	if s.egress != nil {
		s.egress.Close()
	}
}

func (s *Server) serve(srv *http.Server, ln net.Listener) {
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.logf("emulator: serve: %v", err)
	}
}

func (s *Server) prepareDataDir() error {
	if s.opts.DataDir == "" {
		dir, err := os.MkdirTemp("", "e2b-emulator-")
		if err != nil {
			return fmt.Errorf("emulator: data dir: %w", err)
		}
		s.dataDir, s.ownsDataDir = dir, true
	} else {
		abs, err := filepath.Abs(s.opts.DataDir)
		if err != nil {
			return fmt.Errorf("emulator: data dir: %w", err)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return fmt.Errorf("emulator: data dir: %w", err)
		}
		s.dataDir = abs
	}
	for _, sub := range []string{"sandboxes", "templates", "template-files", "layers", "base", "images", "volumes"} {
		if err := os.MkdirAll(filepath.Join(s.dataDir, sub), 0o755); err != nil {
			return fmt.Errorf("emulator: data dir: %w", err)
		}
	}
	ignored, err := s.store.OpenVolumes(filepath.Join(s.dataDir, "volumes"))
	for _, e := range ignored {
		s.logf("emulator: ignoring %v", e)
	}
	if err != nil {
		return fmt.Errorf("emulator: load volumes: %w", err)
	}
	return nil
}

func (s *Server) removeDataDir() {
	if s.ownsDataDir {
		if err := os.RemoveAll(s.dataDir); err != nil {
			s.logf("emulator: remove %s: %v", s.dataDir, err)
		}
	}
}

func (s *Server) readyTimeout() time.Duration {
	if s.opts.ReadyTimeout > 0 {
		return s.opts.ReadyTimeout
	}
	return 60 * time.Second
}

// APIURL is the control-plane base URL, e.g. http://127.0.0.1:PORT.
func (s *Server) APIURL() string { return "http://" + s.ln.Addr().String() }

// SandboxURL is the envd base URL (the same as APIURL with one listener).
func (s *Server) SandboxURL() string {
	if s.envdLn != nil {
		return "http://" + s.envdLn.Addr().String()
	}
	return s.APIURL()
}

// APIKey is the only API key the control plane accepts.
func (s *Server) APIKey() string { return s.apiKey }

// AccessToken is the only access token the control plane accepts, on the
// operations E2B's spec opens to access tokens.
func (s *Server) AccessToken() string { return s.accessToken }

// AdminToken is the bearer token the admin API (/_emulator/*) needs.
func (s *Server) AdminToken() string { return s.opts.AdminToken }

// Close stops the listeners, kills every sandbox process and removes the
// temporary data directory (when the emulator created it).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.stopSampler)
		<-s.samplerDone
		s.cp.Close() // refuses creates and builds from now on
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if e := s.httpSrv.Shutdown(ctx); e != nil {
			_ = s.httpSrv.Close()
		}
		if s.envdSrv != nil {
			if e := s.envdSrv.Shutdown(ctx); e != nil {
				_ = s.envdSrv.Close()
			}
		}
		s.stopEgress()
		s.cp.StopDeliveries()
		s.removeCgroups()
		s.removeDataDir()
	})
	return nil
}

// SandboxIDs lists the alive (running or paused) sandboxes, sorted.
func (s *Server) SandboxIDs() []string { return s.cp.Sandboxes().IDs() }

// TemplateSeed describes a team template for SeedTemplate.
type TemplateSeed = controlplane.TemplateSeed

// SeedTemplate adds (or replaces) a team template with the given number of
// ready builds (at least one). An empty TemplateID gets a random one.
func (s *Server) SeedTemplate(t TemplateSeed) { s.cp.SeedTemplate(t) }

// SetSandboxHTTPSPorts changes a sandbox's network.httpsPorts as nothing in E2B's API can: a
// change made behind a client's back.
func (s *Server) SetSandboxHTTPSPorts(sandboxID string, ports []uint32) error {
	return s.cp.SetHTTPSPorts(sandboxID, ports)
}

// Expire runs the TTL end of a sandbox now (kill, or pause with autoPause).
func (s *Server) Expire(sandboxID string) error { return s.cp.Expire(sandboxID) }

// TeamID is the ID of the emulator's one team (for /teams/{teamID}/metrics).
func (s *Server) TeamID() string { return controlplane.TeamID }
