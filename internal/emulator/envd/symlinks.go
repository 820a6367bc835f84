package envd

import (
	"errors"
	"os"
	"path"
	"strings"
	"syscall"
)

const maxSymlinkHops = 40 // Linux's MAXSYMLINKS

// evalSymlinks resolves every symlink in the clean absolute sandbox path
// virtual the way the sandbox sees it: a link's absolute target is a sandbox
// path, not a host one. It is filepath.EvalSymlinks inside the sandbox, which
// envd uses for a symlink's target.
func (sb *Machine) evalSymlinks(virtual string) (string, error) {
	resolved := "/"
	rest := splitPath(virtual)
	hops := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, name)
		st, err := os.Lstat(sb.hostPath(next))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && holdsSandboxTree(next) {
				resolved = next // e.g. /home: only /home/user is stored
				continue
			}
			return "", err
		}
		if st.Mode()&os.ModeSymlink == 0 {
			if len(rest) > 0 && !st.IsDir() {
				return "", &os.PathError{Op: "lstat", Path: next, Err: syscall.ENOTDIR}
			}
			resolved = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", &os.PathError{Op: "lstat", Path: virtual, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(sb.hostPath(next))
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

// holdsSandboxTree reports whether virtual is a proper ancestor of a tree
// the sandbox stores on its own (/home for /home/user), which exists in the
// sandbox even where nothing stores it.
func holdsSandboxTree(virtual string) bool {
	for _, tree := range []string{VirtualHome, virtualTmp} {
		if strings.HasPrefix(tree, virtual+"/") || virtual == "/" {
			return true
		}
	}
	return false
}

func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, "/") {
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}
