package controlplane

import (
	"net/http"
	"path/filepath"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/delivery"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Config is what the control plane is made with: the emulator's settings
// and what it needs of the emulator around it, as values and functions.
type Config struct {
	Store           *store.Store
	DataDir         string
	Persistent      bool              // the data dir outlives this emulator: templates are saved there
	Rootfs          *sandboxos.Rootfs // private root filesystems; nil in the shared layout
	MachineSettings *envd.Settings    // what every sandbox's machine gets
	Seed            []byte            // keys the access, traffic, egress and workload tokens

	MaxLifetime          time.Duration
	ReadyTimeout         time.Duration
	WebhookRetryInterval time.Duration
	ImageStore           string
	HostRootImages       []string
	// DiskOnlyResumeOff models a cluster where E2B's resume without memory is off: memory=false
	// on connect or resume of a sandbox paused with its memory answers 400.
	DiskOnlyResumeOff bool
	// TransitionTime is how long a pause or a resume lasts: lifecycle requests for the
	// sandbox that arrive meanwhile wait for it, as E2B's do.
	TransitionTime time.Duration
	// SandboxRoutesV1Off and SandboxRoutesV2Off switch off the v1 (POST /sandboxes,
	// /sandboxes/{id}/connect, /sandboxes/{id}/fork) or the /v2 create, connect and fork
	// routes: they answer 404 as routes E2B does not know.
	SandboxRoutesV1Off, SandboxRoutesV2Off bool
	// ForkTeamCap is the most forks one v2 fork may ask for (E2B: 20 by default).
	ForkTeamCap int
	// UploadHeaders are the headers a template file upload link names and the upload must
	// send, as storage that needs them refuses an upload without them (Azure's Put Blob:
	// x-ms-blob-type). None by default: E2B's signed storage URLs need none, and clients
	// that ignore the answer's headers (E2B's CLI 2.19) upload to them.
	UploadHeaders map[string]string
	// APIKey is the team's API key, which GET /teams returns as E2B does.
	APIKey string

	Logf   func(format string, args ...any)
	APIURL func() string // the listener's base URL, known once it listens
	// Admit returns E2B's message when one sandbox more than running would go
	// over the concurrency cap; ForkOverLimit when a fork asks for too many.
	Admit         func(running int) string
	ForkOverLimit func(count int) string
	// Count counts a request the control plane serves itself (uploads);
	// Started a sandbox start; WebhookDropped a delivery the full queue lost.
	Count          func(routeKey string)
	Started        func()
	WebhookDropped func()
}

// API is E2B's control plane: the REST API over the sandbox registry, the
// store and the builder.
type API struct {
	opts       Config
	sandboxes  *sandboxes.Registry
	builder    *builder.Builder
	deliveries *delivery.Sender
	controlMux *http.ServeMux
	validator  *requestValidator
	builds     buildSandboxSet // build sandboxes alive now, for the egress proxy
	legacy     legacyBuildSet  // deprecated Dockerfile builds requested, not yet started
}

// New makes the control plane: the base and mcp-gateway templates, the
// templates a persistent data dir saved, the builder and the webhook
// deliveries.
func New(cfg Config) *API {
	validator, err := newRequestValidator()
	if err != nil {
		// The spec is embedded and covered by tests: it cannot fail to load.
		panic("emulator: E2B's spec does not load: " + err.Error())
	}
	s := &API{opts: cfg, validator: validator}
	s.sandboxes = sandboxes.New(sandboxes.Callbacks{
		Event: s.recordEvent, Admit: cfg.Admit, Started: s.sandboxStarted, Expired: sandboxExpired,
		MaxLifetime: cfg.MaxLifetime, DiskOnlyResumeOff: cfg.DiskOnlyResumeOff, TransitionTime: cfg.TransitionTime,
	})
	now := time.Now().UTC()
	s.opts.Store.SeedBase(now)
	s.seedMCPGateway(now)
	if cfg.Persistent {
		if err := s.opts.Store.OpenTemplates(filepath.Join(s.opts.DataDir, "templates", "state.json"), s.opts.Logf); err != nil {
			s.opts.Logf("emulator: template state in %s not loaded: %v", s.opts.DataDir, err)
		}
	}
	s.builder = builder.New(s.opts.Store, s.newBuildBackend(), s.opts.DataDir, s.opts.Rootfs != nil)
	s.controlMux = s.newControlMux()
	s.startWebhooks()
	s.opts.Store.SampleTeam(now, 0, envd.SampleInterval, maxTeamSamples) // the team's baseline: nothing running
	return s
}

// Sandboxes is the registry of live sandboxes.
func (s *API) Sandboxes() *sandboxes.Registry { return s.sandboxes }

// Route is the route key (ServeMux pattern) of a request; "" when no
// operation matches.
func (s *API) Route(r *http.Request) string {
	_, pattern := s.controlMux.Handler(r)
	return pattern
}

// ServeHTTP dispatches a request that Route matched.
func (s *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.controlMux.ServeHTTP(w, r) }

// SampleTeam records the team's figures now.
func (s *API) SampleTeam(now time.Time, running int) {
	s.opts.Store.SampleTeam(now, int32(running), envd.SampleInterval, maxTeamSamples)
}

// Close refuses new sandboxes and builds, kills every sandbox, cancels the
// builds and waits for them; webhook deliveries stop with StopDeliveries.
func (s *API) Close() {
	machines := s.sandboxes.Close()
	s.deliveries.Hold()
	s.opts.Store.CancelBuilds()
	for _, m := range machines {
		m.Destroy()
	}
	s.builder.Wait()
	s.opts.MachineSettings.WaitTeardowns()
}

// StopDeliveries stops the webhook deliveries.
func (s *API) StopDeliveries() { s.stopWebhooks() }

func (s *API) readyTimeout() time.Duration { return s.opts.ReadyTimeout }

// APIURL is the control plane's base URL.
func (s *API) APIURL() string { return s.opts.APIURL() }
