package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// SandboxForkResultJSON is one sandbox of a fork's answer, or why it did not start.
type SandboxForkResultJSON struct {
	Sandbox *SandboxJSON        `json:"sandbox,omitempty"`
	Error   *httpjson.ErrorJSON `json:"error,omitempty"`
}

// DefaultForkTeamCap is the most forks one v2 fork may ask for unless
// Config.ForkTeamCap says otherwise (E2B's spec: "capped per team (20 by default)").
const DefaultForkTeamCap = 20

// handleFork serves /sandboxes/{id}/fork and /v2/...: it copies a running
// sandbox's files into count new sandboxes. Processes are not cloned: E2B
// forks memory too unless v2's memory=false asks for the filesystem only,
// which is all the emulator can give. Any answer but 201 forked nothing.
func (s *API) handleFork(w http.ResponseWriter, r *http.Request) {
	v2 := strings.HasPrefix(r.Pattern, "POST /v2/")
	var req struct {
		Timeout *int32 `json:"timeout"`
		Count   *int32 `json:"count"`
		Memory  *bool  `json:"memory"` // v2's; v1 has no such field and ignores it
	}
	def := defaultTimeoutV1
	if v2 {
		def = DefaultTimeoutV2
	}
	id, timeout, ok := s.timedSandboxRequest(w, r, &req, &req.Timeout, def)
	if !ok {
		return
	}
	count := 1
	if req.Count != nil { // v1: 1 to 100, v2: at least 1; the request validator checked
		count = int(*req.Count)
	}
	if teamCap := s.forkTeamCap(); v2 && count > teamCap {
		writeErrorf(w, http.StatusBadRequest, "Fork count %d is over the team's limit of %d forks per request", count, teamCap)
		return
	}
	filesystemOnly := v2 && req.Memory != nil && !*req.Memory
	if filesystemOnly && s.opts.DiskOnlyResumeOff {
		httpjson.CodedError(w, http.StatusBadRequest, errCodeMemoryOverrideDisabled,
			"Forking without memory (memory: false) is not enabled for this team")
		return
	}
	if msg := s.opts.ForkOverLimit(count); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	var captured store.Build
	capture := func(src sandboxes.Record, m *envd.Machine) error {
		captured = store.Build{FilesDir: m.Dir(), Config: src.Build.Config}
		if m.Root() == nil {
			return nil
		}
		var err error
		if captured, err = s.captureFiles(src, m, src.Template.ID); err != nil {
			return fmt.Errorf("error forking sandbox: %v", err)
		}
		return nil
	}
	start := func(src sandboxes.Record) sandboxes.Start {
		return func(id string, running int) (sandboxes.Record, *envd.Machine, error) {
			if msg := s.opts.Admit(running); msg != "" { // each fork starts or fails on its own
				return sandboxes.Record{}, nil, sandboxes.LimitError{Message: msg}
			}
			m, err := s.startMachine(id, src.Template, captured, src.Mounts, src.EnvVars, src.Secure)
			if err != nil {
				return sandboxes.Record{}, nil, fmt.Errorf("error forking sandbox: %v", err)
			}
			now := time.Now().UTC()
			return sandboxes.Record{
				Template: src.Template, Build: src.Build, TemplateRef: src.TemplateRef,
				StartedAt: now, EndAt: now.Add(timeout), ResumeTimeout: autoResumeTimeout(timeout),
				AutoPause: src.AutoPause, AutoResume: src.AutoResume, Secure: src.Secure,
				AutoPauseKeeps: src.AutoPauseKeeps, AllowInternet: src.AllowInternet, Network: src.Network,
				Metadata: src.Metadata, EnvVars: src.EnvVars, Mounts: src.Mounts,
			}, m, nil
		}
	}
	forked, err := s.sandboxes.Fork(id, count, capture, start)
	var notRunning sandboxes.NotRunningError
	switch {
	case errors.Is(err, sandboxes.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "emulator is shutting down")
		return
	case errors.Is(err, sandboxes.ErrNotFound):
		notFoundSandbox(w, id)
		return
	case errors.As(err, &notRunning):
		writeErrorf(w, http.StatusConflict, "Sandbox '%s' cannot be forked while in '%s' state", id, notRunning.State)
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	results := make([]SandboxForkResultJSON, 0, count)
	var created []*envd.Machine
	for _, f := range forked {
		var limit sandboxes.LimitError
		switch {
		case errors.As(f.Err, &limit):
			results = append(results, SandboxForkResultJSON{Error: &httpjson.ErrorJSON{Code: http.StatusTooManyRequests, Message: limit.Message}})
			continue
		case f.Err != nil:
			results = append(results, SandboxForkResultJSON{Error: &httpjson.ErrorJSON{Code: http.StatusInternalServerError, Message: f.Err.Error()}})
			continue
		}
		resp := s.sandboxResponse(f.Record)
		results = append(results, SandboxForkResultJSON{Sandbox: &resp})
		created = append(created, f.Machine)
	}
	logged := "Sandbox created by fork"
	if filesystemOnly {
		logged = "Sandbox created by fork of the filesystem only"
	}
	go func() {
		for _, m := range created {
			m.AddLog("info", logged, map[string]string{"sourceSandboxID": id})
			m.TakeSample()
		}
	}()
	httpjson.Write(w, http.StatusCreated, results)
}

func (s *API) forkTeamCap() int {
	if s.opts.ForkTeamCap > 0 {
		return s.opts.ForkTeamCap
	}
	return DefaultForkTeamCap
}
