//go:build linux

package hostfs

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// ListXattrs names the extended attributes of p (following symlinks unless
// noFollow).
func ListXattrs(p string, noFollow bool) ([]string, error) {
	list := unix.Listxattr
	if noFollow {
		list = unix.Llistxattr
	}
	for {
		size, err := list(p, nil)
		if err != nil || size == 0 {
			return nil, err
		}
		buf := make([]byte, size)
		n, err := list(p, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, name := range strings.Split(string(buf[:n]), "\x00") {
			if name != "" {
				names = append(names, name)
			}
		}
		return names, nil
	}
}

// GetXattr reads one attribute; ok is false when it is not set.
func GetXattr(p, name string, noFollow bool) (value []byte, ok bool, err error) {
	get := unix.Getxattr
	if noFollow {
		get = unix.Lgetxattr
	}
	for {
		size, err := get(p, name, nil)
		if errors.Is(err, unix.ENODATA) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		buf := make([]byte, size)
		n, err := get(p, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if errors.Is(err, unix.ENODATA) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		return buf[:n], true, nil
	}
}

func SetXattr(p, name string, value []byte, noFollow bool) error {
	if noFollow {
		return unix.Lsetxattr(p, name, value, 0)
	}
	return unix.Setxattr(p, name, value, 0)
}

// RemoveXattr deletes one attribute; a missing one is not an error.
func RemoveXattr(p, name string, noFollow bool) error {
	remove := unix.Removexattr
	if noFollow {
		remove = unix.Lremovexattr
	}
	if err := remove(p, name); err != nil && !errors.Is(err, unix.ENODATA) {
		return err
	}
	return nil
}

// XattrUnsupported reports a file system without (user) extended attributes.
func XattrUnsupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}
