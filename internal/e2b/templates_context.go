package e2b

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// TemplateContext is the local directory that COPY steps take files from.
// Ignore holds extra ignore patterns; a .dockerignore in Dir is always read,
// as E2B's SDK does.
type TemplateContext struct {
	Dir    string
	Ignore []string
}

// ContextEntry is one path a COPY step sends, relative to the context.
type ContextEntry struct {
	Path string // "/"-separated, "" for the context directory itself
	Kind string // "file", "dir", "symlink" or "other"
}

func errAbsolutePattern(p string) error {
	return fmt.Errorf("source %q is absolute; use a path relative to the context directory", p)
}

// ValidateCopySource applies the SDK's rule for a COPY source: relative, and
// never leaving the context directory.
func ValidateCopySource(src string) error {
	if src == "" {
		return errors.New("source is empty")
	}
	if path.IsAbs(src) || filepath.IsAbs(src) {
		return errAbsolutePattern(src)
	}
	clean := path.Clean(src)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("source %q leaves the context directory; keep it inside", src)
	}
	return nil
}

// ignorePatterns is Ignore plus the .dockerignore lines (no comments, no
// blank lines), in that order.
func (c TemplateContext) ignorePatterns() ([]string, error) {
	out := append([]string(nil), c.Ignore...)
	f, err := os.Open(filepath.Join(c.Dir, ".dockerignore"))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// copyEntries is the SDK's getAllFilesInPath: what src matches, plus
// everything under each matched directory, sorted by full path.
func (c TemplateContext) copyEntries(src string) ([]*globEntry, error) {
	if err := ValidateCopySource(src); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("context directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("context directory %s is not a directory", c.Dir)
	}
	ignore, err := c.ignorePatterns()
	if err != nil {
		return nil, fmt.Errorf("read .dockerignore: %w", err)
	}
	w, err := newGlobWalker(dir, ignore)
	if err != nil {
		return nil, fmt.Errorf("ignore pattern: %w", err)
	}
	top, err := w.glob(src)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*globEntry{}
	for _, e := range top {
		byPath[e.full] = e
		if e.kind != kindDir {
			continue
		}
		base := e.rel
		if base == "" {
			base = "."
		}
		// Joined unescaped, as the SDK does, so both read the same entries.
		under, err := w.glob(base + "/**/*")
		if err != nil {
			return nil, err
		}
		for _, u := range under {
			byPath[u.full] = u
		}
	}
	out := make([]*globEntry, 0, len(byPath))
	for _, e := range byPath {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return utf16Less(out[i].full, out[j].full) })
	return out, nil
}

// utf16Less orders strings as JavaScript's < does.
func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// CopyEntries lists what a COPY of src sends, in the order it is hashed.
func (c TemplateContext) CopyEntries(src string) ([]ContextEntry, error) {
	es, err := c.copyEntries(src)
	if err != nil {
		return nil, err
	}
	out := make([]ContextEntry, len(es))
	for i, e := range es {
		out[i] = ContextEntry{Path: e.rel, Kind: kindName(e.kind)}
	}
	return out, nil
}

func kindName(k entryKind) string {
	switch k {
	case kindDir:
		return "dir"
	case kindFile:
		return "file"
	case kindLink:
		return "symlink"
	}
	return "other"
}

// HashCopy computes the files hash of a COPY step exactly as E2B's SDK does:
// sha256 over "COPY <src> <dest>", then per entry its relative path, mode
// and size (and a regular file's content, or a link's target). Owners and
// times are left out so the hash is the same on every machine. Contents are
// streamed: memory use does not grow with the context.
func (c TemplateContext) HashCopy(src, dest string, resolveSymlinks bool) (string, error) {
	es, err := c.copyEntries(src)
	if err != nil {
		return "", err
	}
	if len(es) == 0 {
		return "", fmt.Errorf("no files found in %s", filepath.Join(c.Dir, src))
	}
	h := sha256.New()
	hashString(h, "COPY "+src+" "+dest)
	buf := make([]byte, 64<<10)
	for _, e := range es {
		if err := hashEntry(h, e, resolveSymlinks, buf); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashEntry(h hash.Hash, e *globEntry, resolveSymlinks bool, buf []byte) error {
	hashString(h, e.rel)
	lfi, err := os.Lstat(e.full)
	if err != nil {
		return err
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		fi, serr := os.Stat(e.full)
		if !(resolveSymlinks && serr == nil && (fi.Mode().IsRegular() || fi.IsDir())) {
			hashStat(h, lfi)
			target, err := os.Readlink(e.full)
			if err != nil {
				return err
			}
			hashString(h, target)
			return nil
		}
	}
	fi, err := os.Stat(e.full)
	if err != nil {
		return err
	}
	hashStat(h, fi)
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(e.full)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyBuffer(h, f, buf)
	return err
}

func hashStat(h hash.Hash, fi fs.FileInfo) {
	hashString(h, strconv.FormatUint(uint64(unixMode(fi.Mode())), 10))
	hashString(h, strconv.FormatInt(fi.Size(), 10))
}

// hashString adds s to h, whose writes never fail.
func hashString(h hash.Hash, s string) { _, _ = io.WriteString(h, s) }

// unixMode is st_mode as stat(2) reports it: type bits and permissions.
func unixMode(m fs.FileMode) uint32 {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	switch {
	case m&fs.ModeSymlink != 0:
		v |= 0o120000
	case m.IsDir():
		v |= 0o040000
	case m&fs.ModeNamedPipe != 0:
		v |= 0o010000
	case m&fs.ModeSocket != 0:
		v |= 0o140000
	case m&fs.ModeCharDevice != 0:
		v |= 0o020000
	case m&fs.ModeDevice != 0:
		v |= 0o060000
	default:
		v |= 0o100000
	}
	return v
}
