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
	if r.Network != nil {
		if err := ValidateHTTPSPorts(r.Network.HTTPSPorts); err != nil {
			return fmt.Errorf("network https ports: %w", err)
		}
	}
	for name, t := range r.IAMTokens {
		if err := ValidateIAMTokenName(name); err != nil {
			return err
		}
		if t.Audience == "" || t.TokenType == "" {
			return fmt.Errorf("iam token %q needs both an audience and a token type", name)
		}
	}
	return nil
}

// ValidateIAMTokenName applies E2B's rule for workload-token names: not empty, without '{', '}'
// or control characters, since the name goes into the "${e2b.identity.tokens.<name>}"
// placeholder E2B's egress proxy resolves (validate_iam_token_name in E2B's Python SDK,
// packages/python-sdk/e2b/sandbox/iam.py; the JS SDK has the same rule).
func ValidateIAMTokenName(name string) error {
	if name == "" {
		return errors.New("an iam token name must not be empty")
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return r == '{' || r == '}' || unicode.Is(unicode.Cc, r) }); i >= 0 {
		return fmt.Errorf("iam token name %q must not contain '{', '}' or control characters (found %q): it is "+
			"written into the ${e2b.identity.tokens.<name>} placeholder", name, []rune(name[i:])[0])
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

// ValidateVolumeMounts checks mount paths: absolute, in clean form, not "/", each once. E2B
// refuses a path that path.Clean would change ("path must not contain any '.' or '..'
// components": isValidMountPath in e2b-dev/infra, packages/api/internal/handlers/sandbox_create.go),
// so "/mnt/a/", "/mnt//b" and "/mnt/./c" are refused here with their clean form named.
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
		if clean != m.Path {
			return fmt.Errorf("mount path %q of volume %q is not in clean form: write %q (E2B takes mount paths "+
				"without trailing '/', '//', '.' or '..')", m.Path, m.Name, clean)
		}
		if other, ok := seen[clean]; ok {
			first, second := min(other, m.Name), max(other, m.Name) // the same message whatever the map order
			return fmt.Errorf("mount path %q is used by volumes %q and %q; each path takes one volume", clean, first, second)
		}
		seen[clean] = m.Name
	}
	return nil
}
