package emulator

import (
	"context"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
)

// runStartCommand starts a template's start command in a new sandbox and
// waits (bounded by the ready timeout) until its ready command succeeds, so
// create answers with the started process there, as on E2B.
func (s *Server) runStartCommand(sb *sandbox, cfg buildConfig) {
	if cfg.StartCmd == "" && cfg.ReadyCmd == "" {
		return
	}
	if cfg.StartCmd != "" {
		p, sub, err := sb.procs.start(commandConfig(cfg.StartCmd, cfg.User, cfg), false, "start", nil)
		if err != nil {
			sb.addLog("error", "Start command failed: "+err.Error(), nil)
			return
		}
		go drainStart(p, sub, func(bool, string) {})
	}
	if cfg.ReadyCmd == "" {
		return
	}
	if err := builder.WaitReady(context.Background(), buildSandbox{sb}, cfg.ReadyCmd, cfg, s.readyTimeout()); err != nil {
		sb.addLog("error", "Ready command did not succeed: "+err.Error(), nil)
	}
}
