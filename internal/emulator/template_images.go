package emulator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// fromImage builds resolve images through Options.ImageStore, a directory
// holding, per image, a root filesystem directory or a tar archive (.tar,
// .tar.gz, .tgz) named after it: "ubuntu:22.04" is looked up as
// "ubuntu:22.04" and "ubuntu_22.04" (a name without a tag also as
// "<name>:latest"). Archives are unpacked once into DataDir/images.
// Unknown names build on the base root filesystem, saying so in the log.

// imageBase registers (once) the base root over an image's files.
func (s *Server) imageBase(root string) (*baseRoot, error) {
	rf := s.rootfs
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if b := rf.images[root]; b != nil {
		return b, nil
	}
	skel := filepath.Join(s.dataDir, "base", "image-"+hashKeys(root)[:16])
	if err := prepareImageBase(skel); err != nil {
		return nil, err
	}
	b := &baseRoot{key: root, skeleton: skel, image: root}
	rf.images[root] = b
	return b, nil
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
func (s *Server) findImage(name string) string {
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
// root) and the build-log line that says which one the build uses.
func (s *Server) resolveImage(name string) (key, note string, err error) {
	entry := s.findImage(name)
	switch {
	case entry == "":
		return "", fmt.Sprintf("Image '%s' is not in the local image store; building on the base root filesystem", name), nil
	case s.rootfs == nil:
		return "", fmt.Sprintf("Image '%s' is in the local image store, but images need private root filesystems, which are unavailable; building on the base root filesystem", name), nil
	}
	st, err := os.Stat(entry)
	if err != nil {
		return "", "", err
	}
	root := entry
	if !st.IsDir() {
		root = filepath.Join(s.dataDir, "images", hashKeys(entry, st.ModTime().String(), fmt.Sprint(st.Size()))[:16])
		if _, err := os.Stat(root); err != nil {
			tmp := root + ".part-" + newID("", 6)
			if err := extractArchive(entry, tmp); err != nil {
				removeTree(tmp)
				return "", "", fmt.Errorf("unpack %s: %w", filepath.Base(entry), err)
			}
			if err := os.Rename(tmp, root); err != nil && !os.IsExist(err) {
				removeTree(tmp)
			}
		}
	}
	if _, err := s.imageBase(root); err != nil {
		return "", "", err
	}
	return root, fmt.Sprintf("Using image '%s' from the local image store (%s)", name, filepath.Base(entry)), nil
}
