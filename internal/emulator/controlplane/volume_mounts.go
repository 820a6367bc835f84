package controlplane

import (
	"sort"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// sandboxVolumeMountJSON is E2B's SandboxVolumeMount.
type sandboxVolumeMountJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func mountsJSON(ms []envd.VolumeMount) []sandboxVolumeMountJSON {
	out := make([]sandboxVolumeMountJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, sandboxVolumeMountJSON{Name: m.Name, Path: m.Path})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
