//go:build unix

package sandboxos

import "syscall"

// WithCredential makes a child process start as id: its user, group and
// supplementary groups, set before it execs.
func WithCredential(a *syscall.SysProcAttr, id Identity) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Credential = &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: append([]uint32(nil), id.Groups...)}
	return a
}
