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
	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
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

// SkippedEntry is something in the folder that the patterns select but that is not uploaded.
type SkippedEntry struct {
	Path   string
	Reason string
	Kind   SkipKind
}

// SkipKind says why an entry is left out.
type SkipKind int

const (
	// SkipUnusable: a link to a directory (never followed, so a loop cannot make the walk
	// endless), a broken link, a device, pipe or socket, or a name with control characters.
	SkipUnusable SkipKind = iota
	// SkipOutside: a symbolic link whose target is not inside the folder. As in Docker's build
	// context, it is never read, so a link such as creds -> ~/.aws/credentials sends nothing.
	SkipOutside
	// SkipWorking: one of Terraform's working files (FolderWorkingFilesNote) that no include
	// pattern names.
	SkipWorking
)

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

// folderMatcher applies LocalFolder's patterns. named holds the include patterns whose last
// part has no wildcard: the only ones that bring in a working file.
type folderMatcher struct {
	include, exclude, named []buildcontext.Glob
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
			if set.into == &m.include && !strings.ContainsAny(path.Base(strings.TrimSuffix(p, "/")), "*?[{") {
				m.named = append(m.named, g)
			}
		}
	}
	return m, nil
}

// names tells whether an include pattern without wildcards in its last part matches rel
// itself, or a directory above it no higher than top (the working folder or file).
func (m *folderMatcher) names(rel, top string) bool {
	for p := rel; ; p = path.Dir(p) {
		for _, g := range m.named {
			if g.Match(p) || g.Match(p+"/") {
				return true
			}
		}
		if p == top || p == "." || p == "/" {
			return false
		}
	}
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
// hashing them, and what it had to leave out. A Dir that is a symbolic link is the folder it
// leads to; inside it, a link is followed only when its target is inside it too, and files are
// read only through the folder (os.Root), so nothing outside it is ever read.
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
	root, err := os.OpenRoot(f.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("source folder: %w", err)
	}
	defer func() { _ = root.Close() }()
	var files []FolderFile
	var skipped []SkippedEntry
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if matchesOrUnder(m.exclude, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if tfworking.Folder(d.Name()) && !m.names(rel, rel) {
				if len(m.include) == 0 || matchesOrUnder(m.include, rel) {
					skipped = append(skipped, SkippedEntry{Path: rel + "/", Kind: SkipWorking,
						Reason: "Terraform's working folder"})
				}
				return filepath.SkipDir
			}
			return nil
		}
		if len(m.include) > 0 && !matchesOrUnder(m.include, rel) {
			return nil
		}
		if hasControlChars(rel) {
			skipped = append(skipped, SkippedEntry{Path: rel, Reason: "its name has control characters"})
			return nil
		}
		if tfworking.FileName(d.Name()) && !m.names(rel, rel) {
			skipped = append(skipped, SkippedEntry{Path: rel, Kind: SkipWorking, Reason: "a Terraform state, plan or crash file"})
			return nil
		}
		info, skip := entryInfo(root, rel, d)
		if skip != nil {
			skipped = append(skipped, *skip)
			return nil
		}
		if savedPlanInRoot(root, rel, info.Size()) && !m.names(rel, rel) {
			skipped = append(skipped, SkippedEntry{Path: rel, Kind: SkipWorking, Reason: "a saved Terraform plan"})
			return nil
		}
		files = append(files, FolderFile{Path: rel, Size: info.Size(), Mode: UploadMode(info.Mode())})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skipped, nil
}

// entryInfo returns what rel (a walk entry) holds, following a link only inside root, or why
// it is left out.
func entryInfo(root *os.Root, rel string, d fs.DirEntry) (fs.FileInfo, *SkippedEntry) {
	var info fs.FileInfo
	var err error
	if d.Type()&fs.ModeSymlink != 0 {
		info, err = root.Stat(rel) // follows the link, refusing a target outside root
		if err != nil {
			target, _ := root.Readlink(rel)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &SkippedEntry{Path: rel, Reason: "it is a broken symbolic link"}
			}
			return nil, &SkippedEntry{Path: rel, Kind: SkipOutside,
				Reason: fmt.Sprintf("it is a symbolic link to %q, outside the folder, which is never read", target)}
		}
	} else if info, err = d.Info(); err != nil {
		return nil, &SkippedEntry{Path: rel, Reason: "it cannot be read: " + err.Error()}
	}
	switch {
	case info.IsDir():
		return nil, &SkippedEntry{Path: rel, Reason: "it is a symbolic link to a directory, which is not followed"}
	case !info.Mode().IsRegular():
		return nil, &SkippedEntry{Path: rel, Reason: "it is not a regular file"}
	}
	return info, nil
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
	var key folderHashKey
	if st, err := r.(*os.File).Stat(); err == nil {
		key = folderHashKeyOf(f.Dir, rel, st)
		if sum, ok := memoHash(key); ok {
			return sum, st.Size(), nil
		}
	}
	sum, n, err := hashStreamBuffer(ctx, r, buf)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", rel, err)
	}
	if key.path != "" && n == key.size {
		rememberHash(key, sum)
	}
	return sum, n, nil
}

// Open opens the folder's file rel for reading; it must (still) be a regular file. It is
// opened through the folder (os.Root): a file replaced by a link out of the folder since the
// walk fails to open rather than being read.
func (f LocalFolder) Open(rel string) (io.ReadCloser, error) {
	fh, err := os.OpenInRoot(f.Dir, filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = fh.Close()
		return nil, fmt.Errorf("%s is no longer a regular file", filepath.Join(f.Dir, filepath.FromSlash(rel)))
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
