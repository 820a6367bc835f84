package envd

import (
	"path"
	"path/filepath"
	"strings"
)

const (
	// VirtualHome is the home directory of the sandbox's user.
	VirtualHome = "/home/user"
	virtualTmp  = "/tmp"
)

// resolvePath maps a path as envd receives it (absolute, "~", "~/x" or
// relative to /home/user; "" is /home/user) to the absolute path the sandbox
// sees and the host path that stores it.
func (sb *Machine) resolvePath(p string) (virtual, host string) {
	switch {
	case p == "" || p == "~":
		p = VirtualHome
	case strings.HasPrefix(p, "~/"):
		p = VirtualHome + p[1:]
	case !strings.HasPrefix(p, "/"):
		p = VirtualHome + "/" + p
	}
	virtual = path.Clean(p)
	return virtual, sb.hostPath(virtual)
}

// followPath is resolvePath for operations that follow a final symlink
// (reading or writing a file's content): with a private root the link is
// followed inside the sandbox, never to the host.
func (sb *Machine) followPath(p string) (virtual, host string) {
	virtual, host = sb.resolvePath(p)
	if sb.root != nil {
		host = sb.root.Path(virtual, true)
	}
	return virtual, host
}

// isPrivatePath reports whether commands see the sandbox's own copy of virtual.
func isPrivatePath(virtual string) bool {
	return virtual == VirtualHome || strings.HasPrefix(virtual, VirtualHome+"/") ||
		virtual == virtualTmp || strings.HasPrefix(virtual, virtualTmp+"/")
}

// commandPath is resolvePath as a command sees it: mounted volumes, the
// sandbox's own copy under /home/user and /tmp, the host's file system
// everywhere else.
func (sb *Machine) commandPath(p string) (virtual, host string) {
	virtual, host = sb.resolvePath(p)
	if _, mounted := sb.mountFor(virtual); sb.root == nil && !mounted && !isPrivatePath(virtual) {
		host = virtual
	}
	return virtual, host
}

// hostPath maps a clean absolute sandbox path to the host path that holds
// it: a mounted volume's directory, else storagePath.
func (sb *Machine) hostPath(virtual string) string {
	if p, ok := sb.mountFor(virtual); ok {
		return p
	}
	return sb.storagePath(virtual)
}

// storagePath maps a clean absolute sandbox path into the sandbox's own
// storage: inside its mounted root (parent symlinks resolved inside it), or
// in the shared layout's home, tmp and root directories.
func (sb *Machine) storagePath(virtual string) string {
	if sb.root != nil {
		return sb.root.Path(virtual, false)
	}
	switch {
	case virtual == VirtualHome || strings.HasPrefix(virtual, VirtualHome+"/"):
		return filepath.Join(sb.homeDir(), filepath.FromSlash(strings.TrimPrefix(virtual, VirtualHome)))
	case virtual == virtualTmp || strings.HasPrefix(virtual, virtualTmp+"/"):
		return filepath.Join(sb.tmpDir(), filepath.FromSlash(strings.TrimPrefix(virtual, virtualTmp)))
	default:
		return filepath.Join(sb.rootDir(), filepath.FromSlash(virtual))
	}
}

// defaultCwd is where user's commands start without a cwd: the template's
// workdir, else the user's home (in the shared layout, /home/user).
func (sb *Machine) defaultCwd(user string) (virtual, host string) {
	if sb.workdir != "" {
		return sb.commandPath(sb.workdir)
	}
	if sb.root != nil {
		return sb.commandPath(userHome(user))
	}
	return VirtualHome, sb.homeDir()
}
