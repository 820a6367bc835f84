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
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
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
	// downloadSkippedNames is how many skipped entries of each kind a result names: a sandbox
	// can hold millions, and the result would grow with them.
	downloadSkippedNames = 100
)

// What a download does with what is already at its destination (DownloadOptions.IfExists).
const (
	// DownloadIfExistsFail refuses a file download whose file exists, and a folder download
	// into a folder that is not empty.
	DownloadIfExistsFail = "fail"
	// DownloadIfExistsMerge replaces the files the sandbox has and leaves the others alone.
	DownloadIfExistsMerge = "merge"
	// DownloadIfExistsReplace empties the destination folder first (a folder download) or
	// replaces the file (a file download).
	DownloadIfExistsReplace = "replace"
)

// DownloadOptions bound and shape a download.
type DownloadOptions struct {
	// Protect is a local folder (the root module's) that the destination must neither be nor
	// hold nor lie in a working folder of; "" protects nothing.
	Protect string
	// Kind is what remote must be: FileTypeFile, FileTypeDir, or "" for either.
	Kind string
	// MaxBytes bounds the bytes written in all (0: no bound beyond the local free space).
	MaxBytes int64
	// IfExists is one of DownloadIfExistsFail (""), DownloadIfExistsMerge or DownloadIfExistsReplace.
	IfExists string
	// OnFile is told of each file copied (nil: nobody).
	OnFile func(DownloadedFile)
}

// DownloadResult is what a download copied.
type DownloadResult struct {
	Files, Dirs int
	Bytes       int64
	// SkippedLinks are the sandbox's links that were not followed (paths
	// relative to the downloaded folder).
	SkippedLinks []string
	// SkippedTerraform are the sandbox's entries named like Terraform's working or
	// configuration files (tfworking.Unwritable), never written.
	SkippedTerraform []string
	// SkippedOther are entries that are neither files, folders nor links (pipes, devices, sockets).
	SkippedOther []string
	// SkippedUnlisted counts the skipped entries past the first downloadSkippedNames of their
	// kind, which are not named.
	SkippedUnlisted int
}

// skip notes rel in list, or only counts it once the list names downloadSkippedNames.
func (r *DownloadResult) skip(list *[]string, rel string) {
	if len(*list) < downloadSkippedNames {
		*list = append(*list, rel)
		return
	}
	r.SkippedUnlisted++
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
// an error, and links inside a folder are skipped and reported. It never
// writes Terraform's working or configuration files (tfworking.Unwritable):
// such a remote is an error, such entries of a folder are skipped and reported.
// Pipes, devices and sockets are never read. Before each file it checks the
// file's size against o.MaxBytes and the local free space, and it never
// writes more than the sandbox announced within those bounds.
func (e *Envd) Download(ctx context.Context, remote, dest string, o DownloadOptions) (*DownloadResult, error) {
	if err := checkDownloadDestination(dest, o.Protect); err != nil {
		return nil, err
	}
	info, err := e.Stat(ctx, remote)
	if err != nil {
		return nil, err
	}
	if err := e.checkDownloadSource(remote, info, o.Kind); err != nil {
		return nil, err
	}
	isFile := info.Type == FileTypeFile
	if err := prepareDownloadDestination(dest, pathpkg.Base(info.Path), isFile, o.IfExists); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, fmt.Errorf("download into %q: %w", dest, err)
	}
	defer func() { _ = root.Close() }()
	d := &downloader{e: e, root: root, o: o, res: &DownloadResult{}, cleaned: map[string]bool{}}
	if isFile {
		return d.res, d.file(ctx, info.Path, pathpkg.Base(info.Path), info.Size, info.Mode)
	}
	// Links and Terraform folders: nothing under them is copied (envd does not list under a
	// link, but a lying envd may).
	skippedDirs := map[string]bool{}
	err = e.ListDirEach(ctx, info.Path, downloadDepth, func(en EntryInfo) error {
		rel, ok := relUnder(info.Path, en.Path)
		if !ok {
			return fmt.Errorf("download %q from sandbox %s: the sandbox listed %q, which does not lie inside it; "+
				"nothing outside the folder is written", remote, e.t.SandboxID, en.Path)
		}
		if underAny(rel, skippedDirs) {
			return nil
		}
		switch {
		case en.SymlinkTarget != "" || en.Type == FileTypeSymlink:
			skippedDirs[rel] = true
			d.res.skip(&d.res.SkippedLinks, rel)
		case tfworking.Unwritable(rel):
			skippedDirs[rel] = true
			d.res.skip(&d.res.SkippedTerraform, rel)
		case en.Type == FileTypeDir:
			if err := localDirs(root, rel); err != nil {
				return err
			}
			d.res.Dirs++
		case en.Type == FileTypeFile:
			return d.file(ctx, en.Path, rel, en.Size, en.Mode)
		default:
			d.res.skip(&d.res.SkippedOther, rel)
		}
		return nil
	})
	return d.res, err
}

// checkDownloadSource refuses a remote that is a link, of the wrong kind, not a file or
// folder, or a file named like Terraform's working or configuration files.
func (e *Envd) checkDownloadSource(remote string, info *EntryInfo, kind string) error {
	op := fmt.Sprintf("download %q from sandbox %s", remote, e.t.SandboxID)
	switch {
	case info.SymlinkTarget != "" || info.Type == FileTypeSymlink:
		return fmt.Errorf("%s: it is a link (to %q), and a download never follows links; name the link's target instead",
			op, info.SymlinkTarget)
	case info.Type != FileTypeFile && info.Type != FileTypeDir:
		return fmt.Errorf("%s: it is neither a regular file nor a folder (a pipe, a device or a socket: %q), "+
			"and a download reads only files and folders", op, info.Permissions)
	case kind == FileTypeFile && info.Type == FileTypeDir:
		return fmt.Errorf("%s: it is a folder, and this download expects a file; nothing was written", op)
	case kind == FileTypeDir && info.Type == FileTypeFile:
		return fmt.Errorf("%s: it is a file, and this download expects a folder; nothing was written", op)
	case info.Type == FileTypeFile && tfworking.Unwritable(pathpkg.Base(info.Path)):
		return fmt.Errorf("%s: %q is named like one of Terraform's or OpenTofu's own files, and a download never "+
			"writes %s or %s", op, pathpkg.Base(info.Path), tfworking.Note, tfworking.ConfigurationNote)
	}
	return nil
}

// downloader copies the files of one download.
type downloader struct {
	e       *Envd
	root    *os.Root
	o       DownloadOptions
	res     *DownloadResult
	cleaned map[string]bool // local folders already rid of stale temporaries
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

// underAny reports whether a folder above rel is one of dirs.
func underAny(rel string, dirs map[string]bool) bool {
	for d := pathpkg.Dir(rel); d != "." && d != "/"; d = pathpkg.Dir(d) {
		if dirs[d] {
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

// file streams one sandbox file of the announced size into root/rel: into a temporary
// name first, renamed over rel when complete (a rename replaces, never follows).
func (d *downloader) file(ctx context.Context, remote, rel string, size int64, mode uint32) error {
	dir := pathpkg.Dir(rel)
	if dir != "." {
		if err := localDirs(d.root, dir); err != nil {
			return err
		}
	}
	d.cleanStale(dir)
	local := filepath.FromSlash(rel)
	if fi, err := d.root.Lstat(local); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("download: local %q is a link; a download never writes through a link (remove it first)", rel)
		case fi.IsDir():
			return fmt.Errorf("download: local %q is a folder where the sandbox has a file", rel)
		}
	}
	allowed, err := d.room(rel, size)
	if err != nil {
		return err
	}
	body, err := d.e.ReadFile(ctx, remote, ReadOptions{})
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
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o777)
	if err != nil {
		return fmt.Errorf("download %q: %w", rel, err)
	}
	// One byte past what is allowed tells a file that grew (or a sandbox that lied) from one
	// that fits.
	n, err := io.CopyBuffer(onlyWriter{f}, io.LimitReader(body, allowed+1), make([]byte, downloadBuffer))
	if err == nil && n > allowed {
		err = d.tooBig(rel, n)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, local)
	}
	if err != nil {
		_ = d.root.Remove(tmp)
		return fmt.Errorf("download %q from sandbox %s: %w", remote, d.e.t.SandboxID, err)
	}
	d.res.Files++
	d.res.Bytes += n
	if d.o.OnFile != nil {
		d.o.OnFile(DownloadedFile{Rel: rel, Size: n})
	}
	return nil
}

func downloadTempName(rel string) (string, error) {
	b := make([]byte, downloadTempRandom)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(filepath.FromSlash(rel)), downloadTempPrefix+hex.EncodeToString(b)), nil
}

// onlyWriter hides *os.File's ReadFrom, so io.CopyBuffer uses the given buffer
// and nothing larger.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
