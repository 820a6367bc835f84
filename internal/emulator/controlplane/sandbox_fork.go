package controlplane

import (
	"errors"
	"fmt"
	"net/http"
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

// handleFork copies a running sandbox's files into count new sandboxes.
// Processes are not cloned (E2B forks memory too; the emulator cannot).
func (s *API) handleFork(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Timeout *int32 `json:"timeout"`
		Count   *int32 `json:"count"`
	}
	id, timeout, ok := s.timedSandboxRequest(w, r, &req, &req.Timeout, defaultTimeoutV1)
	if !ok {
		return
	}
	count := 1
	if req.Count != nil { // 1 to 100: the request validator checked
		count = int(*req.Count)
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
				StartedAt: now, EndAt: now.Add(timeout), ResumeTimeout: timeout,
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
	go func() {
		for _, m := range created {
			m.AddLog("info", "Sandbox created by fork", map[string]string{"sourceSandboxID": id})
			m.TakeSample()
		}
	}()
	httpjson.Write(w, http.StatusCreated, results)
}
