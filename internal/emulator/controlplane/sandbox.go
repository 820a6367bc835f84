package controlplane

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// sandboxIamJSON is SandboxIam: named workload-token definitions.
type sandboxIamJSON struct {
	Tokens map[string]struct {
		Audience  *string `json:"audience"`
		TokenType *string `json:"tokenType"`
	} `json:"tokens"`
}

// audiences is what the sandbox keeps of its iam: each token's audience.
func (i *sandboxIamJSON) audiences() map[string]string {
	if i == nil {
		return nil
	}
	out := map[string]string{}
	for name, t := range i.Tokens {
		if t.Audience != nil {
			out[name] = *t.Audience
		}
	}
	return out
}

func (s *API) accessToken(id string) string {
	m := hmac.New(sha256.New, s.opts.Seed)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// EgressToken is the password a sandbox's processes give the egress proxy.
func (s *API) EgressToken(id string) string {
	m := hmac.New(sha256.New, s.opts.Seed)
	m.Write([]byte("sandbox-egress-" + id))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *API) trafficToken(id string) string {
	m := hmac.New(sha256.New, s.opts.Seed)
	m.Write([]byte("sandbox-traffic-" + id))
	return hex.EncodeToString(m.Sum(nil))
}

// startMachine starts a sandbox's machine from the build: a private root over
// its layers, or a copy of its files, with its volumes mounted before it boots.
func (s *API) startMachine(id string, t store.Template, b store.Build, mounts []envd.VolumeMount,
	envVars map[string]string, secure bool) (*envd.Machine, error) {
	cfg := envd.Config{
		ID: id, TemplateID: t.ID, TeamID: TeamID, Dir: filepath.Join(s.opts.DataDir, "sandboxes", id),
		FilesDir: b.FilesDir, Workdir: b.Config.Workdir, EnvVars: envVars, Mounts: mounts,
		CPUCount: int(b.CPUCount), MemoryMB: int(b.MemoryMB),
	}
	if secure {
		cfg.AccessToken = s.accessToken(id)
	}
	if s.opts.Rootfs != nil {
		root, err := s.mountRoot(b, cfg.Dir)
		if err != nil {
			sandboxos.RemoveTree(cfg.Dir)
			return nil, err
		}
		cfg.Root, cfg.FilesDir = root, ""
	}
	return envd.Start(s.opts.MachineSettings, cfg)
}

// templateOf is the sandbox's template as it is now (its resources follow
// the template's), or as it was if it is gone.
func (s *API) templateOf(rec sandboxes.Record) store.Template {
	if t, ok := s.opts.Store.Template(rec.Template.ID); ok {
		return t
	}
	return rec.Template
}

// sandboxStarted counts a start (create or fork) for the team's metrics and
// the emulator's counters; the registry calls it with its lock held.
func (s *API) sandboxStarted(sandboxes.Record) {
	s.opts.Store.CountStart()
	s.opts.Started()
}

// sandboxExpired logs and finishes what a sandbox's timeout did.
func sandboxExpired(m *envd.Machine, killed bool) {
	if !killed {
		m.AddLog("info", "Sandbox paused after timeout", nil)
		return
	}
	m.AddLog("info", "Sandbox killed after timeout", nil)
	m.Destroy()
}

// SetHTTPSPorts changes a sandbox's HTTPS ports outside E2B's API (the admin API's drift hook).
func (s *API) SetHTTPSPorts(sandboxID string, ports []uint32) error {
	if err := s.sandboxes.SetHTTPSPorts(sandboxID, ports); err != nil {
		return fmt.Errorf("sandbox %q not found", sandboxID)
	}
	return nil
}

// Expire runs the TTL end of a sandbox now (kill, or pause with autoPause).
func (s *API) Expire(sandboxID string) error {
	killed, m, err := s.sandboxes.Expire(sandboxID)
	var notRunning sandboxes.NotRunningError
	switch {
	case errors.As(err, &notRunning):
		return fmt.Errorf("sandbox %q is %s", sandboxID, notRunning.State)
	case err != nil:
		return fmt.Errorf("sandbox %q not found", sandboxID)
	}
	sandboxExpired(m, killed)
	return nil
}
