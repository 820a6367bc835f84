package controlplane

import (
	"os"
	"path/filepath"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Templates, their builds, tags and the step cache are records of the
// store (state/templates.go); these are the names the handlers use.

const (
	EnvdVersion      = "0.6.13"
	ClientID         = "6532622b"
	teamNamespace    = store.TeamNamespace
	baseTemplateID   = store.BaseTemplateID
	baseTemplateName = store.BaseTemplateName
	defaultTag       = store.DefaultTag
	defaultCPUCount  = store.DefaultCPUCount
	defaultMemoryMB  = store.DefaultMemoryMB
	defaultDiskMB    = store.DefaultDiskMB

	// E2B's public mcp-gateway template, which E2B's SDK starts sandboxes with mcp from. The
	// emulator's sandboxes from it are base's plus the mcp-gateway stand-in (sandboxos); base
	// has no mcp-gateway, as on E2B.
	mcpTemplateID = "mcp0gateway0e2b0tmpl"
	mcpBuildID    = "5f2a9d71-0c1e-4b8a-9d3e-6a7b8c9d0e1f"
)

const (
	buildWaiting  = store.BuildWaiting
	buildBuilding = store.BuildBuilding
	buildReady    = store.BuildReady
	buildError    = store.BuildError
)

type (
	buildConfig       = store.BuildConfig
	buildLogEntryJSON = store.BuildLogEntry // E2B's BuildLogEntry
	buildReasonJSON   = store.BuildReason   // E2B's BuildStatusReason
)

// TemplateSeed describes a team template for SeedTemplate.
type TemplateSeed struct {
	TemplateID string   `json:"templateID"`
	Names      []string `json:"names"`
	Builds     int      `json:"builds"`
	CPUCount   int32    `json:"cpuCount"`
	MemoryMB   int32    `json:"memoryMB"`
	DiskSizeMB int32    `json:"diskSizeMB"`
}

// SeedTemplate adds (or replaces) a team template with the given number of
// ready builds (at least one). An empty TemplateID gets a random one. It
// returns the template as GET /templates/{id} answers it.
func (s *API) SeedTemplate(t TemplateSeed) any {
	return templateToJSON(s.seedTemplate(t))
}

func (s *API) seedTemplate(t TemplateSeed) store.Template {
	if t.TemplateID == "" {
		t.TemplateID = ids.New("", 20)
	}
	builds := make([]string, max(t.Builds, 1))
	for i := range builds {
		builds[i] = ids.UUID()
	}
	return s.opts.Store.SeedTemplate(t.TemplateID, t.Names, builds, t.CPUCount, t.MemoryMB, t.DiskSizeMB, time.Now().UTC())
}

// removeTemplateFiles deletes the files of every build of a deleted template.
func (s *API) removeTemplateFiles(t store.Template) {
	for _, b := range t.Builds {
		if b.FilesDir == "" {
			continue
		}
		if err := os.RemoveAll(b.FilesDir); err != nil {
			s.opts.Logf("emulator: remove template files %s: %v", filepath.Base(b.FilesDir), err)
		}
	}
}

// seedMCPGateway adds E2B's mcp-gateway template: base with the gateway's stand-in as its own
// files, a layer over base's root with private roots, the sandbox's root directory without.
func (s *API) seedMCPGateway(now time.Time) {
	dir := filepath.Join(s.opts.DataDir, "builtin", sandboxos.MCPGatewayCommand)
	root := filepath.Join(dir, "root")
	filesDir, layers := dir, []string(nil)
	if s.opts.Rootfs != nil {
		filesDir, layers = "", []string{root}
	}
	if err := sandboxos.WriteMCPGateway(root); err != nil {
		s.opts.Logf("emulator: %v; sandboxes from the mcp-gateway template have no mcp-gateway", err)
		filesDir, layers = "", nil
	}
	s.opts.Store.SeedBuiltin(mcpTemplateID, sandboxos.MCPGatewayCommand, mcpBuildID, now, filesDir, layers)
}
