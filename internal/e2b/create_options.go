package e2b

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
)

// VolumeMount mounts the volume Name at Path (absolute) in a new sandbox.
type VolumeMount struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// IAMToken is one workload-identity token definition of a sandbox.
type IAMToken struct {
	Audience  string `json:"audience"`
	TokenType string `json:"tokenType"`
}

type wireIAM struct {
	Tokens map[string]IAMToken `json:"tokens"`
}

// Validate applies E2B's create rules that can be checked without a call.
func (r CreateSandboxRequest) Validate() error {
	if r.AutoPauseMemory != nil {
		if r.AutoPause == nil || !*r.AutoPause {
			return errors.New("auto_pause_memory applies only when the sandbox auto-pauses (auto_pause = true)")
		}
		if !*r.AutoPauseMemory && r.AutoResume != nil && *r.AutoResume {
			return errors.New("auto_pause_memory = false cannot be combined with auto_resume: a filesystem-only pause must be resumed explicitly")
		}
	}
	if err := ValidateVolumeMounts(r.VolumeMounts); err != nil {
		return err
	}
	if err := ValidateMCP(r.MCP); err != nil {
		return err
	}
	for name, t := range r.IAMTokens {
		if t.Audience == "" || t.TokenType == "" {
			return fmt.Errorf("iam token %q needs both an audience and a token type", name)
		}
	}
	return nil
}

// ValidateMCP checks that an MCP configuration is a JSON object.
func ValidateMCP(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return fmt.Errorf("mcp must be a JSON object such as {\"server\": {...}}")
	}
	return nil
}

// ValidateVolumeMounts checks mount paths: absolute, not "/", each once.
func ValidateVolumeMounts(mounts []VolumeMount) error {
	seen := map[string]string{}
	for _, m := range mounts {
		if m.Name == "" {
			return errors.New("a volume mount needs a volume name")
		}
		if strings.ContainsFunc(m.Path, unicode.IsControl) {
			return fmt.Errorf("mount path %q of volume %q must not contain control characters", m.Path, m.Name)
		}
		if !strings.HasPrefix(m.Path, "/") {
			return fmt.Errorf("mount path %q of volume %q must be absolute", m.Path, m.Name)
		}
		clean := path.Clean(m.Path)
		if clean == "/" {
			return fmt.Errorf("volume %q cannot be mounted at /", m.Name)
		}
		if other, ok := seen[clean]; ok {
			return fmt.Errorf("mount path %q is used by volumes %q and %q; each path takes one volume", clean, other, m.Name)
		}
		seen[clean] = m.Name
	}
	return nil
}
