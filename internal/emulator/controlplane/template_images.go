package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// fromImage builds resolve images through Options.ImageStore, a directory
// holding, per image, a root filesystem directory or a tar archive (.tar,
// .tar.gz, .tgz) named after it: "ubuntu:22.04" is looked up as
// "ubuntu:22.04" and "ubuntu_22.04" (a name without a tag also as
// "<name>:latest"). Archives are unpacked once into DataDir/images.
//
// E2B's base image (e2bdev/base, which the SDK's fromBaseImage and a build
// naming no base use) is the emulator's base root, as the base template is. Any other image the store lacks fails the build naming the image,
// unless Options.HostRootImages lists it (or holds "*"): then the build runs
// on the host's base root and its log says so in a warning.

// baseImageName is E2B's base image, which the emulator's base root stands in for.
const baseImageName = builder.BaseImage

func isBaseImage(name string) bool {
	return name == baseImageName || strings.HasPrefix(name, baseImageName+":")
}

// imageBase registers (once) the base root over an image's files.
func (s *API) imageBase(root string) (*sandboxos.BaseRoot, error) {
	return s.opts.Rootfs.ImageBase(root, filepath.Join(s.opts.DataDir, "base", "image-"+builder.HashKeys(root)[:16]))
}

// imageCandidates lists the store entries an image name may have.
func imageCandidates(name string) []string {
	names := []string{name}
	if !strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		names = append(names, name+":latest")
	}
	var out []string
	for _, n := range names {
		out = append(out, n, strings.NewReplacer("/", "_", ":", "_").Replace(n))
	}
	return out
}

// findImage returns the store entry for name ("" when there is none).
func (s *API) findImage(name string) string {
	if s.opts.ImageStore == "" || name == "" || strings.Contains(name, "..") {
		return ""
	}
	for _, c := range imageCandidates(name) {
		for _, suffix := range []string{"", ".tar", ".tar.gz", ".tgz"} {
			p := filepath.Join(s.opts.ImageStore, c+suffix)
			st, err := os.Stat(p)
			if err == nil && (st.IsDir() == (suffix == "")) {
				return p
			}
		}
	}
	return ""
}

// resolveImage gives the base root key for an image ("" = the host's base
// root) and the build-log line (level and text) that says which one the
// build uses; an image it cannot provide is an error naming it.
func (s *API) resolveImage(name string) (key, level, note string, err error) {
	entry := s.findImage(name)
	switch {
	case isBaseImage(name) && entry == "":
		return "", "info", fmt.Sprintf("Image '%s' is E2B's base image: building on the emulator's base root filesystem", name), nil
	case entry == "" || s.opts.Rootfs == nil:
		why := fmt.Sprintf("image '%s' is not in the emulator's image store", name)
		remedy := fmt.Sprintf("give the emulator -image-store DIR holding a root filesystem (a directory or a .tar, .tar.gz or .tgz archive) named %s", imageCandidates(name)[1])
		switch {
		case entry != "":
			why = fmt.Sprintf("image '%s' is in the emulator's image store, but images need private root filesystems, which are unavailable here", name)
			remedy = "run the emulator where it can make them (Linux with overlayfs and mount or user namespaces, -isolation auto; its log says what is missing)"
		case s.opts.ImageStore == "":
			why += " (the emulator runs without -image-store)"
		}
		if !s.hostRootAllowed(name) {
			return "", "", "", fmt.Errorf("%s: %s, or let it build on the host's root filesystem with -host-root-images %s", why, remedy, name)
		}
		return "", "warn", fmt.Sprintf("Warning: %s; building on the host's root filesystem instead (-host-root-images), so the build does not see the image's files", why), nil
	}
	st, err := os.Stat(entry)
	if err != nil {
		return "", "", "", err
	}
	root := entry
	if !st.IsDir() {
		root = filepath.Join(s.opts.DataDir, "images", builder.HashKeys(entry, st.ModTime().String(), fmt.Sprint(st.Size()))[:16])
		if _, err := os.Stat(root); err != nil {
			tmp := root + ".part-" + ids.New("", 6)
			if err := builder.ExtractArchive(entry, tmp); err != nil {
				sandboxos.RemoveTree(tmp)
				return "", "", "", fmt.Errorf("unpack %s: %w", filepath.Base(entry), err)
			}
			if err := os.Rename(tmp, root); err != nil && !os.IsExist(err) {
				sandboxos.RemoveTree(tmp)
			}
		}
	}
	if _, err := s.imageBase(root); err != nil {
		return "", "", "", err
	}
	return root, "info", fmt.Sprintf("Using image '%s' from the local image store (%s)", name, filepath.Base(entry)), nil
}

// hostRootAllowed tells whether Options.HostRootImages lets name build on
// the host's base root.
func (s *API) hostRootAllowed(name string) bool {
	return slices.Contains(s.opts.HostRootImages, "*") || slices.Contains(s.opts.HostRootImages, name)
}
