package hostfs

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

// ownerXattr records the owner of a file that envd created for root, for an
// emulator that cannot give files another user's IDs (not root on the host):
// there ownership cannot come from the file's uid; without the attribute a
// file belongs to "user". Where it can, the file's uid says it.
const ownerXattr = "user.e2b-emulator.owner"

// ValidateMetadata applies envd's limits to an upload's metadata.
func ValidateMetadata(meta map[string]string) error {
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

// ReadMetadata returns the user.e2b.* attributes of host (following a
// symlink) with the prefix stripped; nil when there are none or the file
// system has no extended attributes. Entries that are not valid UTF-8 (set
// from inside the sandbox) are skipped, as envd skips them.
func ReadMetadata(host string) map[string]string {
	names, err := ListXattrs(host, false)
	if err != nil {
		return nil
	}
	var meta map[string]string
	for _, name := range names {
		key, ok := strings.CutPrefix(name, metadataXattrPrefix)
		if !ok {
			continue
		}
		value, ok, err := GetXattr(host, name, false)
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

// WriteMetadata replaces the file's metadata with meta: keys it lacks are
// removed, so an upload without metadata clears what an earlier one set.
func WriteMetadata(host string, meta map[string]string) error {
	names, err := ListXattrs(host, false)
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
		if err := RemoveXattr(host, name, false); err != nil {
			return err
		}
	}
	for k, v := range meta {
		if err := SetXattr(host, metadataXattrPrefix+k, []byte(v), false); err != nil {
			return err
		}
	}
	return nil
}

// Owner is the owner envd reports for host (the link itself for a
// symlink): "root" for what envd created as root, else "user".
func Owner(host string) string {
	if v, ok, err := GetXattr(host, ownerXattr, true); err == nil && ok && string(v) == RootOwner {
		return RootOwner
	}
	return DefaultOwner
}

// SetOwner records that envd created or overwrote host as user, as its
// chown does.
func SetOwner(host, user string) error {
	if user == RootOwner {
		return SetXattr(host, ownerXattr, []byte(RootOwner), true)
	}
	return RemoveXattr(host, ownerXattr, true)
}

// EnsureDirs creates dir and its missing parents, owned by user like envd's
// EnsureDirs; existing directories keep their owner.
func EnsureDirs(dir, user string) error {
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
	if user == DefaultOwner {
		return nil // no attribute means "user"
	}
	for _, d := range missing {
		if err := SetOwner(d, user); err != nil && !XattrUnsupported(err) {
			return err
		}
	}
	return nil
}

// CopyXattrs copies the user.* attributes of src to dst, so snapshots and
// templates keep file metadata and ownership. Best effort, like cp -a.
func CopyXattrs(src, dst string) {
	names, err := ListXattrs(src, true)
	if err != nil {
		return
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "user.") {
			continue
		}
		if v, ok, err := GetXattr(src, name, true); err == nil && ok {
			_ = SetXattr(dst, name, v, true)
		}
	}
}
