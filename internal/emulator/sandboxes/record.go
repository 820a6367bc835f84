package sandboxes

import (
	"encoding/json"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/egress"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// A sandbox is running or paused; a killed one is gone from the registry.
const (
	Running = "running"
	Paused  = "paused"
)

// Record is what E2B's control plane keeps of a sandbox. The registry hands
// out copies: changing one changes nothing.
type Record struct {
	ID             string
	Template       store.Template // as it was when the sandbox started
	Build          store.Build    // the build the sandbox started from
	TemplateRef    string         // as the create named it
	State          string
	StartedAt      time.Time
	EndAt          time.Time
	ResumeTimeout  time.Duration // what an auto-resume by traffic gives: the create's timeout, at least E2B's 300 s
	AutoPause      bool
	AutoPauseKeeps bool // autoPauseMemory: an auto-pause keeps processes (memory snapshot)
	AutoResume     bool
	Secure         bool
	AllowInternet  *bool
	Network        Network
	Metadata       map[string]string
	EnvVars        map[string]string
	Mounts         []envd.VolumeMount // fixed at create
	ExecutionID    string             // new at create and at every resume
	MCP            json.RawMessage
	IAMAudiences   map[string]string // workload-token name → audience
	PausedByMemory bool
}

// OnTimeout is what the sandbox's timeout does, in E2B's words.
func (r Record) OnTimeout() string {
	if r.AutoPause {
		return "pause"
	}
	return "kill"
}

func (r Record) clone() Record {
	r.Metadata = copyMap(r.Metadata)
	r.EnvVars = copyMap(r.EnvVars)
	r.Mounts = append([]envd.VolumeMount(nil), r.Mounts...)
	r.IAMAudiences = copyMap(r.IAMAudiences)
	r.Network = r.Network.clone()
	return r
}

// Network is what the sandbox keeps of its egress settings, in the shape of
// E2B's SandboxNetworkConfig.
type Network struct {
	AllowOut           []string                 `json:"allowOut,omitempty"`
	DenyOut            []string                 `json:"denyOut,omitempty"`
	AllowPublicTraffic *bool                    `json:"allowPublicTraffic,omitempty"`
	MaskRequestHost    string                   `json:"maskRequestHost,omitempty"`
	Rules              map[string][]egress.Rule `json:"rules,omitempty"`
	EgressProxy        *egress.Proxy            `json:"egressProxy,omitempty"`
	// HTTPSPorts are the sandbox's ports that serve HTTPS, fixed at create: E2B's proxy
	// reaches them over TLS. The emulator keeps and reports them; its proxy reaches every port in plain HTTP.
	HTTPSPorts []uint32 `json:"httpsPorts,omitempty"`
}

// Shown is the configuration as E2B's API returns it: never the proxy's password.
func (n Network) Shown() Network {
	if n.EgressProxy != nil {
		p := *n.EgressProxy
		p.Password = ""
		n.EgressProxy = &p
	}
	return n
}

// Empty reports whether nothing was configured.
func (n Network) Empty() bool {
	return len(n.AllowOut) == 0 && len(n.DenyOut) == 0 && n.AllowPublicTraffic == nil && n.MaskRequestHost == "" &&
		len(n.Rules) == 0 && n.EgressProxy == nil && len(n.HTTPSPorts) == 0
}

func (n Network) clone() Network {
	n.AllowOut = append([]string(nil), n.AllowOut...)
	n.DenyOut = append([]string(nil), n.DenyOut...)
	n.HTTPSPorts = append([]uint32(nil), n.HTTPSPorts...)
	if n.EgressProxy != nil {
		p := *n.EgressProxy
		n.EgressProxy = &p
	}
	return n // rules are replaced as a whole, never changed in place
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
