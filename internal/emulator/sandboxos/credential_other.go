//go:build !unix

package sandboxos

import "syscall"

// WithCredential leaves the attributes alone: there are no user IDs to take.
func WithCredential(a *syscall.SysProcAttr, _ Identity) *syscall.SysProcAttr { return a }
