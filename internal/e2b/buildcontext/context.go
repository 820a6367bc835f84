package buildcontext

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

// Context is the local directory that COPY steps take files from.
// Ignore holds extra ignore patterns; a .dockerignore in Dir is always read,
// as E2B's SDK does.
type Context struct {
	Dir    string
	Ignore []string
	// NormalizeModes sends (and hashes) every file with the mode git would
	// give it: 0755 when its owner may execute it, else 0644; folders 0755,
	// links 0777. Two checkouts made with different umasks then hash alike.
	// Off, each entry keeps its own mode, as in E2B's SDK.
	NormalizeModes bool
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
func (c Context) ignorePatterns(scope *contextScope) ([]string, error) {
	out := append([]string(nil), c.Ignore...)
	if _, err := scope.resolve(".dockerignore"); err != nil {
		return nil, err
	}
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
// everything under each matched directory, sorted by full path; without
// Terraform's working files, and never through a link out of the context.
// follow is the step's resolve_symlinks: links it would follow must lead
// inside the context too. skipped names the working files left out.
func (c Context) copyEntries(src string, follow bool) (entries []*globEntry, skipped []string, err error) {
	if err := ValidateCopySource(src); err != nil {
		return nil, nil, err
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("context directory: %w", err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("context directory %s is not a directory", c.Dir)
	}
	scope, err := newContextScope(dir)
	if err != nil {
		return nil, nil, err
	}
	ignore, err := c.ignorePatterns(scope)
	if err != nil {
		return nil, nil, fmt.Errorf("read .dockerignore: %w", err)
	}
	w, err := newGlobWalker(dir, scope, ignore)
	if err != nil {
		return nil, nil, fmt.Errorf("ignore pattern: %w", err)
	}
	top, err := w.glob(src)
	if err != nil {
		return nil, nil, err
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
			return nil, nil, err
		}
		for _, u := range under {
			byPath[u.full] = u
		}
	}
	all := make([]*globEntry, 0, len(byPath))
	for _, e := range byPath {
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return utf16Less(all[i].full, all[j].full) })
	out := all[:0]
	for _, e := range all {
		keep, err := c.keepEntry(scope, e, follow)
		if err != nil {
			return nil, nil, err
		}
		if keep {
			out = append(out, e)
		} else {
			w.working[e.rel] = true
		}
	}
	for rel := range w.working {
		skipped = append(skipped, rel)
	}
	sort.Strings(skipped)
	return out, skipped, nil
}

// keepEntry checks a link the step follows (it must lead inside the
// context; a dangling one is sent as a link, as the SDK does) and leaves out
// saved plans.
func (c Context) keepEntry(scope *contextScope, e *globEntry, follow bool) (bool, error) {
	switch e.kind {
	case kindFile:
		return !isPlanFile(e.full), nil
	case kindLink:
		if !follow {
			return true, nil // sent as a link: nothing it points at is read
		}
		real, err := scope.resolve(e.rel)
		if err != nil {
			return false, err
		}
		if real == "" {
			return true, nil
		}
		fi, err := os.Stat(real)
		return err != nil || !fi.Mode().IsRegular() || !isPlanFile(real), nil
	}
	return true, nil
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

// HashCopy computes the files hash of a COPY step exactly as E2B's SDK does:
// sha256 over "COPY <src> <dest>", then per entry its relative path, mode
// and size (and a regular file's content, or a link's target). Owners and
// times are left out so the hash is the same on every machine. Contents are
// streamed: memory use does not grow with the context. It departs from the
// SDK where the SDK would read outside the context or send Terraform's
// working files (see copyEntries), and with NormalizeModes.
func (c Context) HashCopy(src, dest string, resolveSymlinks bool) (string, error) {
	es, skipped, err := c.copyEntries(src, resolveSymlinks)
	if err != nil {
		return "", err
	}
	if len(es) == 0 {
		return "", noFilesError(c.Dir, src, skipped)
	}
	h := sha256.New()
	hashString(h, "COPY "+src+" "+dest)
	buf := make([]byte, 64<<10)
	for _, e := range es {
		if err := hashEntry(h, e, resolveSymlinks, c.NormalizeModes, buf); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func noFilesError(dir, src string, skipped []string) error {
	if len(skipped) == 0 {
		return fmt.Errorf("no files found in %s", filepath.Join(dir, src))
	}
	return fmt.Errorf("no files to send for %s: it matches only %s; %s", src, strings.Join(skipped, ", "), WorkingFilesNote)
}

// followed returns what a link entry stands for in a step that follows
// links: its target's stat when that is a file or a folder (copyEntries
// checked it is inside the context); nil to send the link itself.
func followed(e *globEntry, lfi fs.FileInfo, resolveSymlinks bool) fs.FileInfo {
	if !resolveSymlinks || lfi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	fi, err := os.Stat(e.full)
	if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
		return nil
	}
	return fi
}

func hashEntry(h hash.Hash, e *globEntry, resolveSymlinks, normalize bool, buf []byte) error {
	hashString(h, e.rel)
	fi, err := os.Lstat(e.full)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target := followed(e, fi, resolveSymlinks)
		if target == nil {
			hashStat(h, fi, normalize)
			link, err := os.Readlink(e.full)
			if err != nil {
				return err
			}
			hashString(h, link)
			return nil
		}
		fi = target
	}
	hashStat(h, fi, normalize)
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

func hashStat(h hash.Hash, fi fs.FileInfo, normalize bool) {
	hashString(h, strconv.FormatUint(uint64(unixMode(entryMode(fi.Mode(), normalize))), 10))
	hashString(h, strconv.FormatInt(fi.Size(), 10))
}

// entryMode is the mode an entry is hashed and archived with: its own, or
// with NormalizeModes the one git would give it.
func entryMode(m fs.FileMode, normalize bool) fs.FileMode {
	if !normalize {
		return m
	}
	switch typ := m.Type(); {
	case typ&fs.ModeSymlink != 0:
		return typ | 0o777
	case m.IsDir():
		return typ | 0o755
	case m&0o100 != 0:
		return typ | 0o755
	default:
		return typ | 0o644
	}
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
