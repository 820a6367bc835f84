package emulator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// File metadata lives where envd keeps it: in extended attributes named
// user.e2b.<key> on the file itself, so it follows renames and copies, is
// replaced by the next upload, and can be set from inside the sandbox
// (setfattr -n user.e2b.key -v value file).
const (
	metadataXattrPrefix = "user.e2b."
	maxMetadataKeyLen   = 255 - len(metadataXattrPrefix) // the kernel's xattr name limit
	maxMetadataTotalLen = 4096                           // one ext4 block holds every xattr of an inode
)

// ownerXattr records the owner of a file that envd created for root. Every
// command runs as the emulator's own user, so ownership cannot come from the
// file's uid; without the attribute a file belongs to "user".
const ownerXattr = "user.e2b-emulator.owner"

// validateMetadata applies envd's limits to an upload's metadata.
func validateMetadata(meta map[string]string) error {
	total := 0
	for k, v := range meta {
		if k == "" {
			return errors.New("invalid metadata: metadata key must not be empty")
		}
		if len(k) > maxMetadataKeyLen {
			return fmt.Errorf("invalid metadata: metadata key %q exceeds %d bytes", k, maxMetadataKeyLen)
		}
		total += len(metadataXattrPrefix) + len(k) + len(v)
	}
	if total > maxMetadataTotalLen {
		return fmt.Errorf("invalid metadata: total metadata size %d exceeds %d bytes", total, maxMetadataTotalLen)
	}
	return nil
}

// readFileMetadata returns the user.e2b.* attributes of host (following a
// symlink) with the prefix stripped; nil when there are none or the file
// system has no extended attributes. Entries that are not valid UTF-8 (set
// from inside the sandbox) are skipped, as envd skips them.
func readFileMetadata(host string) map[string]string {
	names, err := listXattrs(host, false)
	if err != nil {
		return nil
	}
	var meta map[string]string
	for _, name := range names {
		key, ok := strings.CutPrefix(name, metadataXattrPrefix)
		if !ok {
			continue
		}
		value, ok, err := getXattr(host, name, false)
		if err != nil || !ok || !utf8.ValidString(key) || !utf8.Valid(value) {
			continue
		}
		if meta == nil {
			meta = map[string]string{}
		}
		meta[key] = string(value)
	}
	return meta
}

// writeFileMetadata replaces the file's metadata with meta: keys it lacks are
// removed, so an upload without metadata clears what an earlier one set.
func writeFileMetadata(host string, meta map[string]string) error {
	names, err := listXattrs(host, false)
	if err != nil {
		return err
	}
	for _, name := range names {
		key, ok := strings.CutPrefix(name, metadataXattrPrefix)
		if !ok {
			continue
		}
		if _, keep := meta[key]; keep {
			continue
		}
		if err := removeXattr(host, name, false); err != nil {
			return err
		}
	}
	for k, v := range meta {
		if err := setXattr(host, metadataXattrPrefix+k, []byte(v), false); err != nil {
			return err
		}
	}
	return nil
}

// fileOwner is the owner envd reports for host (the link itself for a
// symlink): "root" for what envd created as root, else "user".
func fileOwner(host string) string {
	if v, ok, err := getXattr(host, ownerXattr, true); err == nil && ok && string(v) == rootUser {
		return rootUser
	}
	return defaultUser
}

// setFileOwner records that envd created or overwrote host as user, as its
// chown does.
func setFileOwner(host, user string) error {
	if user == rootUser {
		return setXattr(host, ownerXattr, []byte(rootUser), true)
	}
	return removeXattr(host, ownerXattr, true)
}

// ensureDirs creates dir and its missing parents, owned by user like envd's
// EnsureDirs; existing directories keep their owner.
func ensureDirs(dir, user string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if user == defaultUser {
		return nil // no attribute means "user"
	}
	for _, d := range missing {
		if err := setFileOwner(d, user); err != nil && !xattrUnsupported(err) {
			return err
		}
	}
	return nil
}

// copyXattrs copies the user.* attributes of src to dst, so snapshots and
// templates keep file metadata and ownership. Best effort, like cp -a.
func copyXattrs(src, dst string) {
	names, err := listXattrs(src, true)
	if err != nil {
		return
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "user.") {
			continue
		}
		if v, ok, err := getXattr(src, name, true); err == nil && ok {
			_ = setXattr(dst, name, v, true)
		}
	}
}
