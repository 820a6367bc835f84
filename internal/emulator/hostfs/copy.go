package hostfs

import (
	"io"
	"os"
	"path/filepath"
)

// CopyTree copies src into dst (files, dirs, symlinks, modes, user.*
// extended attributes).
func CopyTree(src, dst string) error {
	return WalkInto(src, dst, func(p, _, target string, info os.FileInfo) error {
		switch {
		case info.IsDir():
			if err := os.MkdirAll(target, info.Mode().Perm()|0o700); err != nil {
				return err
			}
			CopyXattrs(p, target)
			return nil
		case info.Mode()&os.ModeSymlink != 0:
			return CopySymlink(p, target)
		case info.Mode().IsRegular():
			if err := CopyFile(p, target, info.Mode().Perm()); err != nil {
				return err
			}
			CopyXattrs(p, target)
			return nil
		}
		return nil // sockets, fifos, devices are not copied
	})
}

// WalkInto walks src and hands fn each path p with rel, its path below src,
// and target, where it goes below dst.
func WalkInto(src, dst string, fn func(p, rel, target string, info os.FileInfo) error) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return fn(p, rel, filepath.Join(dst, rel), info)
	})
}

// CopySymlink makes target a symlink to where the link p points.
func CopySymlink(p, target string) error {
	link, err := os.Readlink(p)
	if err != nil {
		return err
	}
	return os.Symlink(link, target)
}

func CopyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// DirSize sums the sizes of regular files under dir.
func DirSize(dir string) int64 {
	var total int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	return total
}
