package e2b

import (
	"fmt"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
)

const (
	// downloadTempRandom is how many random bytes (hex in the name) follow downloadTempPrefix.
	downloadTempRandom = 6
	// downloadStaleAfter is how long a temporary of a download may sit unchanged before another
	// download takes it for the leftover of a killed one and removes it: a live download writes
	// to its temporary all the time (an idle stream ends long before).
	downloadStaleAfter = time.Hour
)

// checkDownloadDestination refuses a destination that is a file, or that is, holds or lies in
// a working folder of the protected folder (the root module's): a download there could
// replace the configuration the next run executes.
func checkDownloadDestination(dest, protect string) error {
	if fi, err := os.Stat(dest); err == nil && !fi.IsDir() {
		return fmt.Errorf("download into %q: it is a file, and the destination is the folder the download "+
			"writes into; name a folder (it is created when missing)", dest)
	}
	if name, ok := holdsConfiguration(dest); ok {
		return fmt.Errorf("download into %q: it holds %q, so it is a Terraform or OpenTofu module's folder, and a "+
			"download never writes where it could replace the configuration or Terraform's own files; name a folder "+
			"of its own, such as \"${path.root}/downloads\"", dest, name)
	}
	if protect == "" {
		return nil
	}
	d, err := resolvedAbs(dest)
	if err != nil {
		return fmt.Errorf("download into %q: %w", dest, err)
	}
	p, err := resolvedAbs(protect)
	if err != nil {
		return fmt.Errorf("download into %q: %w", dest, err)
	}
	if rel, err := filepath.Rel(d, p); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return fmt.Errorf("download into %q: it is or holds the folder Terraform runs in (%s), and a download "+
			"never writes where it could replace the configuration or Terraform's own files; name a folder of its own, "+
			"such as \"${path.root}/downloads\"", dest, p)
	}
	if rel, err := filepath.Rel(p, d); err == nil && !strings.HasPrefix(rel, "..") {
		if tfworking.Unwritable(filepath.ToSlash(rel)) {
			return fmt.Errorf("download into %q: it lies in one of Terraform's or OpenTofu's working or configuration "+
				"folders, which a download never writes", dest)
		}
	}
	return nil
}

// holdsConfiguration reports a configuration file or working folder directly in dir, if any.
func holdsConfiguration(dir string) (string, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	for {
		names, err := f.Readdirnames(1024)
		for _, n := range names {
			if tfworking.Folder(n) || tfworking.ConfigurationName(n) {
				return n, true
			}
		}
		if err != nil {
			return "", false
		}
	}
}

// resolvedAbs is p made absolute with the links of its longest existing part resolved, so
// that two names of one folder compare equal.
func resolvedAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(cur) == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// prepareDownloadDestination creates dest and applies ifExists to what is there.
func prepareDownloadDestination(dest, name string, isFile bool, ifExists string) error {
	entries, err := os.ReadDir(dest)
	if err != nil {
		// Missing, or under a file: mkdirDest creates it or says which part is a file.
		return mkdirDest(dest)
	}
	switch ifExists {
	case DownloadIfExistsMerge:
	case DownloadIfExistsReplace:
		if isFile {
			return nil // the file is renamed over
		}
		for _, en := range entries {
			if err := os.RemoveAll(filepath.Join(dest, en.Name())); err != nil {
				return fmt.Errorf("download into %q with if_exists = %q: empty it: %w", dest, ifExists, err)
			}
		}
	default:
		if isFile {
			if _, err := os.Lstat(filepath.Join(dest, name)); err == nil {
				return fmt.Errorf("download into %q: %q already exists there; nothing was written (if_exists = %q: "+
					"set it to %q to replace it)", dest, name, DownloadIfExistsFail, DownloadIfExistsReplace)
			}
			return nil
		}
		for _, en := range entries {
			if !isDownloadTemp(en.Name()) {
				return fmt.Errorf("download into %q: the folder is not empty (it holds %q); nothing was written "+
					"(if_exists = %q: set it to %q to replace the files the sandbox has and keep the others, or to %q "+
					"to empty the folder first)", dest, en.Name(), DownloadIfExistsFail, DownloadIfExistsMerge, DownloadIfExistsReplace)
			}
		}
	}
	return nil
}

func mkdirDest(dest string) error {
	err := os.MkdirAll(dest, 0o755)
	if err == nil {
		return nil
	}
	for cur := filepath.Dir(dest); filepath.Dir(cur) != cur; cur = filepath.Dir(cur) {
		if fi, serr := os.Stat(cur); serr == nil {
			if !fi.IsDir() {
				return fmt.Errorf("download into %q: %s is a file, and the destination must be a folder "+
					"(created when missing)", dest, cur)
			}
			break
		}
	}
	return fmt.Errorf("download into %q: %w", dest, err)
}

// room is how many bytes rel may take, refusing a file whose announced size exceeds
// MaxBytes or the local free space.
func (d *downloader) room(rel string, size int64) (int64, error) {
	allowed := int64(1<<63 - 1)
	if d.o.MaxBytes > 0 {
		allowed = d.o.MaxBytes - d.res.Bytes
		if size > allowed {
			return 0, d.tooBig(rel, size)
		}
	}
	dir := filepath.Join(d.root.Name(), filepath.FromSlash(pathpkg.Dir(rel)))
	if free, ok := freeBytes(dir); ok {
		if size > free {
			return 0, fmt.Errorf("download %q: the sandbox has %d bytes of it and the local disk has %d free; nothing "+
				"of it was written", rel, size, free)
		}
		allowed = min(allowed, free)
	}
	return allowed, nil
}

func (d *downloader) tooBig(rel string, size int64) error {
	return fmt.Errorf("download %q: %d bytes would take the download past max_bytes (%d bytes, %d written so far); "+
		"nothing of it was kept", rel, size, d.o.MaxBytes, d.res.Bytes)
}

// isDownloadTemp reports whether name is a temporary a download writes under
// (downloadTempPrefix and downloadTempRandom bytes in hex), and nothing else.
func isDownloadTemp(name string) bool {
	r, ok := strings.CutPrefix(name, downloadTempPrefix)
	if !ok || len(r) != 2*downloadTempRandom {
		return false
	}
	for _, c := range r {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// cleanStale removes, once per folder, the temporaries a killed download left in dir (files of
// this download's own name pattern unchanged for downloadStaleAfter).
func (d *downloader) cleanStale(dir string) {
	if d.cleaned[dir] {
		return
	}
	d.cleaned[dir] = true
	f, err := d.root.Open(filepath.FromSlash(dir))
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	for {
		entries, err := f.ReadDir(1024)
		for _, en := range entries {
			if !isDownloadTemp(en.Name()) || !en.Type().IsRegular() {
				continue
			}
			if fi, err := en.Info(); err == nil && time.Since(fi.ModTime()) > downloadStaleAfter {
				_ = d.root.Remove(filepath.Join(filepath.FromSlash(dir), en.Name()))
			}
		}
		if err != nil {
			return
		}
	}
}
