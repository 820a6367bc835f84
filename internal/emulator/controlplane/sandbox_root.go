package controlplane

import (
	"path/filepath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// mountRoot starts a new sandbox's root over the build's layers in dir.
func (s *API) mountRoot(b store.Build, dir string) (*sandboxos.Root, error) {
	base := s.opts.Rootfs.HostBase()
	if b.Base != "" {
		var err error
		if base, err = s.imageBase(b.Base); err != nil {
			return nil, err
		}
	}
	root := s.opts.Rootfs.NewRoot(base, b.Layers, dir)
	root.Limits = sandboxos.Limits{MemoryMB: int(b.MemoryMB), CPUCount: int(b.CPUCount)}
	if err := root.Start(s.opts.DataDir); err != nil {
		return nil, err
	}
	return root, nil
}

// captureLayer copies a sandbox's own layer into a new immutable layer and
// returns the layers a sandbox started from it sees.
func (s *API) captureLayer(sb *envd.Machine) ([]string, error) {
	return s.opts.Rootfs.CaptureLayer(sb.Root(), filepath.Join(s.opts.DataDir, "layers", "s"+ids.New("", 15)))
}
