package builder

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// copyStep runs COPY [src, dest, owner?, mode?] from the archive the SDK
// uploaded for the step's files hash, with E2B's placement rules: the part
// of src before any glob names what is copied; a directory's contents go
// into dest, a file or symlink becomes dest (or goes into dest when dest
// ends with "/" or is a directory); a relative dest is relative to the
// workdir. Symlinks are kept as links.
func (j *buildJob) copyStep(args []string, filesHash *string, cfg store.BuildConfig) error {
	if len(args) < 2 {
		return errors.New("COPY requires a local path and a container path argument")
	}
	if filesHash == nil || *filesHash == "" {
		return errors.New("COPY requires files hash to be set")
	}
	archive, ok := j.bl.backend.FilesArchive(*filesHash)
	if !ok {
		return fmt.Errorf("files with hash '%s' were not uploaded", *filesHash)
	}
	var mode os.FileMode
	if len(args) >= 4 && args[3] != "" {
		m, err := strconv.ParseUint(args[3], 8, 32)
		if err != nil {
			return fmt.Errorf("invalid mode '%s'", args[3])
		}
		mode = os.FileMode(m) & os.ModePerm
	}
	unpack, err := os.MkdirTemp(filepath.Join(j.bl.dataDir, "template-files"), "unpack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(unpack)
	if err := ExtractArchive(archive, unpack); err != nil {
		return fmt.Errorf("failed to extract files: %w", err)
	}
	src := filepath.Join(unpack, filepath.FromSlash(staticPrefix(args[0])))
	if rel, err := filepath.Rel(unpack, src); err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("source '%s' leaves the build context", args[0])
	}
	st, err := os.Lstat(src)
	if err != nil {
		return fmt.Errorf("source '%s' is not in the uploaded files", args[0])
	}
	dest := args[1]
	if !strings.HasPrefix(dest, "/") {
		base := cfg.Workdir
		if base == "" {
			base = HomeOf(cfg.User)
		}
		dest = path.Join(base, dest) + map[bool]string{true: "/", false: ""}[strings.HasSuffix(dest, "/")]
	}
	hostDest := j.sb.HostPath(dest)
	if mode != 0 {
		if err := chmodTree(src, mode); err != nil {
			return err
		}
		if st, err = os.Lstat(src); err != nil {
			return err
		}
	}
	// The copy belongs to the owner the step names, else to the step's user, as what a
	// command of that user would have written.
	owner := cfg.User
	if len(args) >= 3 && args[2] != "" {
		owner = args[2]
	}
	switch {
	case st.IsDir():
		_, existed := os.Lstat(hostDest)
		if err := os.MkdirAll(hostDest, 0o755); err != nil {
			return err
		}
		if err := hostfs.CopyTree(src, hostDest); err != nil {
			return err
		}
		if existed != nil {
			if err := j.sb.Give(hostDest, owner); err != nil {
				return err
			}
		}
		return j.giveCopied(src, hostDest, owner)
	default:
		if d, err := os.Stat(hostDest); strings.HasSuffix(dest, "/") || (err == nil && d.IsDir()) {
			hostDest = filepath.Join(hostDest, filepath.Base(src))
		}
		if err := os.MkdirAll(filepath.Dir(hostDest), 0o755); err != nil {
			return err
		}
		_ = os.Remove(hostDest)
		if st.Mode()&os.ModeSymlink != 0 {
			link, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, hostDest); err != nil {
				return err
			}
			return j.sb.Give(hostDest, owner)
		}
		if err := hostfs.CopyFile(src, hostDest, st.Mode().Perm()); err != nil {
			return err
		}
		if err := os.Chmod(hostDest, st.Mode().Perm()); err != nil { // not narrowed by the umask
			return err
		}
		return j.sb.Give(hostDest, owner)
	}
}

// giveCopied gives what a folder's copy brought into dest (the entries of
// src, not what dest held before) to owner.
func (j *buildJob) giveCopied(src, dest, owner string) error {
	return filepath.Walk(src, func(p string, _ os.FileInfo, err error) error {
		if err != nil || p == src {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return j.sb.Give(filepath.Join(dest, rel), owner)
	})
}

// staticPrefix is the part of a COPY source before its first glob segment.
func staticPrefix(src string) string {
	var keep []string
	for _, seg := range strings.Split(path.Clean("/" + src)[1:], "/") {
		if strings.ContainsAny(seg, `*?[{\`) {
			break
		}
		keep = append(keep, seg)
	}
	return path.Join(keep...)
}

func chmodTree(root string, mode os.FileMode) error {
	return filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			return err
		}
		return os.Chmod(p, mode)
	})
}

// ExtractArchive unpacks a tar (gzip or plain) into dst, refusing entries
// that would land outside it.
func ExtractArchive(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := path.Clean("/" + h.Name)[1:]
		if rel == "" {
			continue
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if err := checkNoLinkParents(dst, rel); err != nil {
			return err
		}
		mode := os.FileMode(h.Mode) & os.ModePerm
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, mode|0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				_ = out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeLink:
			src := filepath.Join(dst, filepath.FromSlash(path.Clean("/" + h.Linkname)[1:]))
			if err := checkNoLinkParents(dst, path.Clean("/" + h.Linkname)[1:]); err != nil {
				return err
			}
			_ = os.Remove(target)
			if err := os.Link(src, target); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			_ = os.Remove(target)
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// checkNoLinkParents fails when a parent of rel under root is a symlink, so
// an archive cannot write through a link it created itself.
func checkNoLinkParents(root, rel string) error {
	cur := root
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		st, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("archive entry '%s' goes through a symlink", rel)
		}
	}
	return nil
}
