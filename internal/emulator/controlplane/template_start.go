package controlplane

import (
	"context"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// runStartCommand starts a template's start command in a new sandbox and
// waits (bounded by the ready timeout) until its ready command succeeds, so
// create answers with the started process there, as on E2B.
func (s *API) runStartCommand(sb *envd.Machine, cfg buildConfig) {
	if cfg.StartCmd == "" && cfg.ReadyCmd == "" {
		return
	}
	if cfg.StartCmd != "" {
		if err := sb.StartBackground(command(cfg.StartCmd, cfg.User, cfg), func(bool, string) {}); err != nil {
			sb.AddLog("error", "Start command failed: "+err.Error(), nil)
			return
		}
	}
	if cfg.ReadyCmd == "" {
		return
	}
	if err := builder.WaitReady(context.Background(), buildSandbox{sb: sb}, cfg.ReadyCmd, cfg, s.readyTimeout()); err != nil {
		sb.AddLog("error", "Ready command did not succeed: "+err.Error(), nil)
	}
}
