package emulator

import (
	"os"
	"path/filepath"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// Templates, their builds, tags and the step cache are records of the
// store (state/templates.go); these are the names the handlers use.

const (
	envdVersion      = "0.6.13"
	clientID         = "6532622b"
	teamNamespace    = state.TeamNamespace
	baseTemplateID   = state.BaseTemplateID
	baseTemplateName = state.BaseTemplateName
	defaultTag       = state.DefaultTag
	defaultCPUCount  = state.DefaultCPUCount
	defaultMemoryMB  = state.DefaultMemoryMB
	defaultDiskMB    = state.DefaultDiskMB
)

const (
	buildWaiting  = state.BuildWaiting
	buildBuilding = state.BuildBuilding
	buildReady    = state.BuildReady
	buildError    = state.BuildError
)

type (
	buildConfig       = state.BuildConfig
	buildLogEntryJSON = state.BuildLogEntry // E2B's BuildLogEntry
	buildReasonJSON   = state.BuildReason   // E2B's BuildStatusReason
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
// ready builds (at least one). An empty TemplateID gets a random one.
func (s *Server) SeedTemplate(t TemplateSeed) {
	s.seedTemplate(t)
}

func (s *Server) seedTemplate(t TemplateSeed) state.Template {
	if t.TemplateID == "" {
		t.TemplateID = newID("", 20)
	}
	ids := make([]string, max(t.Builds, 1))
	for i := range ids {
		ids[i] = newUUID()
	}
	return s.store.SeedTemplate(t.TemplateID, t.Names, ids, t.CPUCount, t.MemoryMB, t.DiskSizeMB, time.Now().UTC())
}

// removeTemplateFiles deletes the files of every build of a deleted template.
func (s *Server) removeTemplateFiles(t state.Template) {
	for _, b := range t.Builds {
		if b.FilesDir == "" {
			continue
		}
		if err := os.RemoveAll(b.FilesDir); err != nil {
			s.logf("emulator: remove template files %s: %v", filepath.Base(b.FilesDir), err)
		}
	}
}

// persistent reports whether the state outlives this emulator.
func (s *Server) persistent() bool { return !s.ownsDataDir }
