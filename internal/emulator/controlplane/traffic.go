package controlplane

import (
	"crypto/subtle"
	"errors"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// minAutoResumeTimeout is E2B's floor for the timeout a sandbox gets when traffic resumes it
// (its minimum-autoresume-timeout flag): the create's timeout, but never less.
const minAutoResumeTimeout = 300 * time.Second

// autoResumeTimeout is what E2B keeps at create for an auto-resume: the sandbox's timeout, at
// least minAutoResumeTimeout.
func autoResumeTimeout(timeout time.Duration) time.Duration {
	return max(timeout, minAutoResumeTimeout)
}

// TrafficRefusal says why the sandbox proxy must not forward a request.
type TrafficRefusal int

// The refusals, each an answer of E2B's proxy.
const (
	TrafficAllowed TrafficRefusal = iota
	TrafficSandboxNotFound
	TrafficTokenMissing
	TrafficTokenInvalid
	TrafficResumeDenied
	TrafficSandboxLimit // a resume would pass the team's concurrency cap (Traffic.Message says so)
)

// Traffic is the control plane's answer to the sandbox proxy about one request.
type Traffic struct {
	Refusal  TrafficRefusal
	Machine  *envd.Machine
	Resumed  bool   // a paused sandbox was resumed by this request
	MaskHost string // network.maskRequestHost for a port other than envd's ("" keeps the Host)
	Message  string // why, for TrafficSandboxLimit
}

// TrafficTokens are the tokens a request to a sandbox carries.
type TrafficTokens struct {
	Traffic string // e2b-traffic-access-token
	Envd    string // X-Access-Token
}

// Traffic decides a request to port of sandbox id, in E2B's order: a sandbox that is gone, or
// paused without autoResume (or paused without its memory), is not found; a paused one resumes
// only for the token it wants (its traffic access token when allowPublicTraffic is false, envd's
// access token on envd's port of a secure sandbox), else 403, and not past the team's cap on
// running sandboxes (429); a running one with
// allowPublicTraffic false wants its traffic access token on every port but envd's.
func (s *API) Traffic(id string, port uint64, tokens TrafficTokens) Traffic {
	toEnvd := port == envdPort // no traffic token there; a secure sandbox resumes for envd's token
	rec, m, resumed, err := s.sandboxes.AutoResume(id, func(rec sandboxes.Record) bool {
		if !toEnvd && privateTraffic(rec) {
			return tokenMatches(tokens.Traffic, s.trafficToken(rec.ID))
		}
		if toEnvd && rec.Secure {
			return tokenMatches(tokens.Envd, s.accessToken(rec.ID))
		}
		return true
	})
	var limited sandboxes.LimitError
	switch {
	case errors.Is(err, sandboxes.ErrResumeDenied):
		return Traffic{Refusal: TrafficResumeDenied}
	case errors.As(err, &limited):
		return Traffic{Refusal: TrafficSandboxLimit, Message: limited.Message}
	case err != nil:
		return Traffic{Refusal: TrafficSandboxNotFound}
	}
	if !toEnvd && privateTraffic(rec) {
		switch {
		case tokens.Traffic == "":
			return Traffic{Refusal: TrafficTokenMissing}
		case !tokenMatches(tokens.Traffic, s.trafficToken(rec.ID)):
			return Traffic{Refusal: TrafficTokenInvalid}
		}
	}
	t := Traffic{Machine: m, Resumed: resumed}
	if !toEnvd {
		t.MaskHost = rec.Network.MaskRequestHost
	}
	return t
}

// privateTraffic: the sandbox was created with network.allowPublicTraffic false.
func privateTraffic(rec sandboxes.Record) bool {
	return rec.Network.AllowPublicTraffic != nil && !*rec.Network.AllowPublicTraffic
}

func tokenMatches(given, want string) bool {
	return subtle.ConstantTimeCompare([]byte(given), []byte(want)) == 1
}
