package controlplane

import (
	"sort"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// volumeMountJSON is E2B's SandboxVolumeMount.
type volumeMountJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func mountsJSON(ms []envd.VolumeMount) []volumeMountJSON {
	out := make([]volumeMountJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, volumeMountJSON{Name: m.Name, Path: m.Path})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
