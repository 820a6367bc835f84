package e2b

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of a download.
const (
	// downloadDepth is how deep a folder download lists: deeper entries are not copied.
	downloadDepth = 256
	// downloadBuffer is the one buffer each file streams through: memory stays bounded
	// whatever the file's size.
	downloadBuffer = 256 << 10
	// downloadTempPrefix starts the name a file is written under until it is complete.
	downloadTempPrefix = ".e2b-download-"
)

// DownloadResult is what a download copied.
type DownloadResult struct {
	Files, Dirs int
	Bytes       int64
	// SkippedLinks are the sandbox's links that were not followed (paths
	// relative to the downloaded folder).
	SkippedLinks []string
}

// DownloadedFile is one file copied, for progress reports.
type DownloadedFile struct {
	Rel  string // path in the local folder, with '/'
	Size int64
}

// Download copies remote, a file or a folder in the sandbox, into the local
// folder dest, which it creates when missing: a file lands as
// dest/<its name>, a folder's content as dest's content. Files stream
// through one fixed buffer (bounded memory) into a temporary name and are
// renamed into place when complete, so an existing file is replaced whole.
//
// It never writes outside dest: every local path goes through an os.Root
// of dest, no local link is written through or into (a local symlink on the
// way is an error), and a sandbox entry that does not lie under remote is
// an error. It never follows a sandbox link: remote itself being a link is
// an error, and links inside a folder are skipped and reported.
func (e *Envd) Download(ctx context.Context, remote, dest string, onFile func(DownloadedFile)) (*DownloadResult, error) {
	info, err := e.Stat(ctx, remote)
	if err != nil {
		return nil, err
	}
	if info.SymlinkTarget != "" {
		return nil, fmt.Errorf("download %q from sandbox %s: it is a link (to %q), and a download never follows links; "+
			"name the link's target instead", remote, e.t.SandboxID, info.SymlinkTarget)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, fmt.Errorf("download into %q: %w", dest, err)
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, fmt.Errorf("download into %q: %w", dest, err)
	}
	defer func() { _ = root.Close() }()
	res := &DownloadResult{}
	if info.Type != FileTypeDir {
		return res, e.downloadFile(ctx, root, info.Path, pathpkg.Base(info.Path), info.Mode, res, onFile)
	}
	entries, err := e.ListDir(ctx, info.Path, downloadDepth)
	if err != nil {
		return res, err
	}
	slices.SortFunc(entries, func(a, b EntryInfo) int { return strings.Compare(a.Path, b.Path) })
	var links []string
	for _, en := range entries {
		rel, ok := relUnder(info.Path, en.Path)
		if !ok {
			return res, fmt.Errorf("download %q from sandbox %s: the sandbox listed %q, which does not lie inside it; "+
				"nothing outside the folder is written", remote, e.t.SandboxID, en.Path)
		}
		if underAny(rel, links) {
			continue
		}
		switch {
		case en.SymlinkTarget != "" || en.Type == FileTypeSymlink:
			links = append(links, rel)
			res.SkippedLinks = append(res.SkippedLinks, rel)
		case en.Type == FileTypeDir:
			if err := localDirs(root, rel); err != nil {
				return res, err
			}
			res.Dirs++
		case en.Type == FileTypeFile:
			if err := e.downloadFile(ctx, root, en.Path, rel, en.Mode, res, onFile); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// relUnder is p relative to root, when p lies strictly inside root.
func relUnder(root, p string) (string, bool) {
	root, p = pathpkg.Clean(root), pathpkg.Clean(p)
	rel, found := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/")
	if !found || rel == "" || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") {
		return "", false
	}
	return rel, true
}

func underAny(rel string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// localDirs makes the folders of rel inside root, refusing any link on the way.
func localDirs(root *os.Root, rel string) error {
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		cur = pathpkg.Join(cur, part)
		fi, err := root.Lstat(filepath.FromSlash(cur))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := root.Mkdir(filepath.FromSlash(cur), 0o755); err != nil {
				return fmt.Errorf("download: create folder %q: %w", cur, err)
			}
		case err != nil:
			return fmt.Errorf("download: %q: %w", cur, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("download: local %q is a link; a download never writes through a link", cur)
		case !fi.IsDir():
			return fmt.Errorf("download: local %q is a file where the sandbox has a folder", cur)
		}
	}
	return nil
}

// downloadFile streams one sandbox file into root/rel: into a temporary name
// first, renamed over rel when complete (a rename replaces, never follows).
func (e *Envd) downloadFile(ctx context.Context, root *os.Root, remote, rel string, mode uint32, res *DownloadResult, onFile func(DownloadedFile)) error {
	if dir := pathpkg.Dir(rel); dir != "." {
		if err := localDirs(root, dir); err != nil {
			return err
		}
	}
	local := filepath.FromSlash(rel)
	if fi, err := root.Lstat(local); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("download: local %q is a link; a download never writes through a link (remove it first)", rel)
		case fi.IsDir():
			return fmt.Errorf("download: local %q is a folder where the sandbox has a file", rel)
		}
	}
	body, err := e.ReadFile(ctx, remote, ReadOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }()
	tmp, err := downloadTempName(rel)
	if err != nil {
		return err
	}
	perm := fs.FileMode(mode).Perm()
	if perm == 0 {
		perm = 0o644
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o777)
	if err != nil {
		return fmt.Errorf("download %q: %w", rel, err)
	}
	n, err := io.CopyBuffer(onlyWriter{f}, body, make([]byte, downloadBuffer))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, local)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("download %q from sandbox %s: %w", remote, e.t.SandboxID, err)
	}
	res.Files++
	res.Bytes += n
	if onFile != nil {
		onFile(DownloadedFile{Rel: rel, Size: n})
	}
	return nil
}

func downloadTempName(rel string) (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(filepath.FromSlash(rel)), downloadTempPrefix+hex.EncodeToString(b)), nil
}

// onlyWriter hides *os.File's ReadFrom, so io.CopyBuffer uses the given buffer
// and nothing larger.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
