package e2b

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

// LocalFolder is a local directory whose regular files are uploaded to a sandbox, chosen with
// glob patterns in the syntax of a template's ignore patterns (minimatch: "*", "?", "[...]",
// "**", "{a,b}"; dot files match). A pattern that matches a directory stands for everything
// in it, so "node_modules" leaves out the whole tree and "src" takes it all.
type LocalFolder struct {
	Dir     string
	Include []string // a file is uploaded only if one of them matches it; none: every file
	Exclude []string // a file one of them matches is left out, even if included
}

// FolderFile is one regular file of a folder (or of its copy in a sandbox).
type FolderFile struct {
	Path   string // relative to the folder, "/"-separated
	Size   int64
	Mode   uint32 // permission bits (0o777)
	SHA256 string // hex; "" until hashed
}

// SkippedEntry is something in the folder that the patterns select but that cannot be
// uploaded: a link to a directory (never followed, so a loop cannot make the walk endless),
// a broken link, a device, pipe or socket, or a name with control characters.
type SkippedEntry struct {
	Path   string
	Reason string
}

// defaultUploadMode is the mode of uploaded files where the local system has no Unix modes.
const defaultUploadMode = 0o644

// ValidateFolderPattern checks an include or exclude pattern: valid syntax, relative, and
// never leaving the folder.
func ValidateFolderPattern(p string) error {
	if p == "" {
		return errors.New("pattern is empty")
	}
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return fmt.Errorf("pattern %q is absolute; patterns are relative to the source folder", p)
	}
	if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("pattern %q leaves the source folder", p)
	}
	_, err := buildcontext.CompileGlob(p)
	return err
}

// folderMatcher applies LocalFolder's patterns.
type folderMatcher struct {
	include, exclude []buildcontext.Glob
}

func (f LocalFolder) matcher() (*folderMatcher, error) {
	m := &folderMatcher{}
	for _, set := range []struct {
		pats []string
		into *[]buildcontext.Glob
	}{{f.Include, &m.include}, {f.Exclude, &m.exclude}} {
		for _, p := range set.pats {
			if err := ValidateFolderPattern(p); err != nil {
				return nil, err
			}
			g, _ := buildcontext.CompileGlob(p) // checked just above
			*set.into = append(*set.into, g)
		}
	}
	return m, nil
}

// matchesOrUnder tells whether a pattern matches rel or one of the directories above it.
func matchesOrUnder(pats []buildcontext.Glob, rel string) bool {
	for p := rel; p != "."; p = path.Dir(p) {
		for _, g := range pats {
			if g.Match(p) || g.Match(p+"/") {
				return true
			}
		}
	}
	return false
}

// List walks the folder and returns its selected files in path order (byte order), without
// hashing them, and what it had to leave out.
func (f LocalFolder) List(ctx context.Context) ([]FolderFile, []SkippedEntry, error) {
	m, err := f.matcher()
	if err != nil {
		return nil, nil, err
	}
	st, err := os.Stat(f.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("source folder: %w", err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("source %s is not a directory", f.Dir)
	}
	var files []FolderFile
	var skipped []SkippedEntry
	err = filepath.WalkDir(f.Dir, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, relErr := filepath.Rel(f.Dir, full)
		if relErr != nil {
			return relErr
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if matchesOrUnder(m.exclude, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(m.include) > 0 && !matchesOrUnder(m.include, rel) {
			return nil
		}
		if hasControlChars(rel) {
			skipped = append(skipped, SkippedEntry{Path: rel, Reason: "its name has control characters"})
			return nil
		}
		info, err := os.Stat(full) // follows a link to its target
		switch {
		case err != nil && d.Type()&fs.ModeSymlink != 0:
			skipped = append(skipped, SkippedEntry{Path: rel, Reason: "it is a broken symbolic link"})
		case err != nil:
			return err
		case info.IsDir():
			skipped = append(skipped, SkippedEntry{Path: rel, Reason: "it is a symbolic link to a directory, which is not followed"})
		case !info.Mode().IsRegular():
			skipped = append(skipped, SkippedEntry{Path: rel, Reason: "it is not a regular file"})
		default:
			files = append(files, FolderFile{Path: rel, Size: info.Size(), Mode: UploadMode(info.Mode())})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skipped, nil
}

// UploadMode is the mode a local file is uploaded with: its permission bits, or 0644 where the
// local system has no Unix modes.
func UploadMode(m fs.FileMode) uint32 {
	if runtime.GOOS == "windows" {
		return defaultUploadMode
	}
	return uint32(m.Perm())
}

func hasControlChars(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// Scan is List with each file's content hashed, one file at a time through one buffer:
// memory does not grow with the files' sizes.
func (f LocalFolder) Scan(ctx context.Context) ([]FolderFile, []SkippedEntry, error) {
	files, skipped, err := f.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, 64<<10)
	for i := range files {
		sum, size, err := f.hashFile(ctx, files[i].Path, buf)
		if err != nil {
			return nil, nil, err
		}
		files[i].SHA256, files[i].Size = sum, size
	}
	return files, skipped, nil
}

func (f LocalFolder) hashFile(ctx context.Context, rel string, buf []byte) (string, int64, error) {
	r, err := f.Open(rel)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = r.Close() }()
	h := sha256.New()
	n, err := io.CopyBuffer(h, ctxReader{ctx: ctx, r: r}, buf)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Open opens the folder's file rel for reading; it must (still) be a regular file.
func (f LocalFolder) Open(rel string) (io.ReadCloser, error) {
	full := filepath.Join(f.Dir, filepath.FromSlash(rel))
	fh, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = fh.Close()
		return nil, fmt.Errorf("%s is no longer a regular file", full)
	}
	return fh, nil
}

// FolderDigest is the sha256 (hex) of a folder's listing: for each file in path order its
// path, mode and content sha256. Editing, adding, removing, renaming or changing the mode of
// a file changes it; times and owners do not. The same files give the same digest locally
// and in a sandbox.
func FolderDigest(files []FolderFile) string {
	sorted := files
	if !sort.SliceIsSorted(files, func(i, j int) bool { return files[i].Path < files[j].Path }) {
		sorted = append([]FolderFile(nil), files...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	}
	h := sha256.New()
	for _, f := range sorted {
		_, _ = fmt.Fprintf(h, "%s\x00%04o\x00%s\n", f.Path, f.Mode, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ctxReader fails reads once ctx has ended, so a cancelled run stops hashing.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
