package emulator

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

const (
	virtualHome = "/home/user"
	virtualTmp  = "/tmp"
)

// resolvePath maps a path as envd receives it (absolute, "~", "~/x" or
// relative to /home/user; "" is /home/user) to the absolute path the sandbox
// sees and the host path that stores it.
func (sb *sandbox) resolvePath(p string) (virtual, host string) {
	switch {
	case p == "" || p == "~":
		p = virtualHome
	case strings.HasPrefix(p, "~/"):
		p = virtualHome + p[1:]
	case !strings.HasPrefix(p, "/"):
		p = virtualHome + "/" + p
	}
	virtual = path.Clean(p)
	return virtual, sb.hostPath(virtual)
}

// followPath is resolvePath for operations that follow a final symlink
// (reading or writing a file's content): with a private root the link is
// followed inside the sandbox, never to the host.
func (sb *sandbox) followPath(p string) (virtual, host string) {
	virtual, host = sb.resolvePath(p)
	if sb.root != nil {
		host = sb.root.rootPath(virtual, true)
	}
	return virtual, host
}

// isPrivatePath reports whether commands see the sandbox's own copy of virtual.
func isPrivatePath(virtual string) bool {
	return virtual == virtualHome || strings.HasPrefix(virtual, virtualHome+"/") ||
		virtual == virtualTmp || strings.HasPrefix(virtual, virtualTmp+"/")
}

// commandPath is resolvePath as a command sees it: the sandbox's own copy
// under /home/user and /tmp, the host's file system everywhere else.
func (sb *sandbox) commandPath(p string) (virtual, host string) {
	virtual, host = sb.resolvePath(p)
	if sb.root == nil && !isPrivatePath(virtual) {
		host = virtual
	}
	return virtual, host
}

// hostPath maps a clean absolute sandbox path to the host path that holds
// it: inside the sandbox's mounted root (parent symlinks resolved inside
// it), or in the shared layout's home, tmp and root directories.
func (sb *sandbox) hostPath(virtual string) string {
	if sb.root != nil {
		return sb.root.rootPath(virtual, false)
	}
	switch {
	case virtual == virtualHome || strings.HasPrefix(virtual, virtualHome+"/"):
		return filepath.Join(sb.homeDir(), filepath.FromSlash(strings.TrimPrefix(virtual, virtualHome)))
	case virtual == virtualTmp || strings.HasPrefix(virtual, virtualTmp+"/"):
		return filepath.Join(sb.tmpDir(), filepath.FromSlash(strings.TrimPrefix(virtual, virtualTmp)))
	default:
		return filepath.Join(sb.rootDir(), filepath.FromSlash(virtual))
	}
}

// copyTree copies src into dst (files, dirs, symlinks, modes, user.*
// extended attributes).
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case info.IsDir():
			if err := os.MkdirAll(target, info.Mode().Perm()|0o700); err != nil {
				return err
			}
			copyXattrs(p, target)
			return nil
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case info.Mode().IsRegular():
			if err := copyFile(p, target, info.Mode().Perm()); err != nil {
				return err
			}
			copyXattrs(p, target)
			return nil
		}
		return nil // sockets, fifos, devices are not copied
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
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

// dirSize sums the sizes of regular files under dir.
func dirSize(dir string) int64 {
	var total int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	return total
}

// defaultCwd is where commands start without a cwd: the template's workdir,
// else /home/user.
func (sb *sandbox) defaultCwd() (virtual, host string) {
	if sb.build != nil && sb.build.config.workdir != "" {
		return sb.commandPath(sb.build.config.workdir)
	}
	if sb.root != nil {
		return sb.commandPath(virtualHome)
	}
	return virtualHome, sb.homeDir()
}
