//go:build !linux

package emulator

import (
	"errors"
	"os/exec"
)

var errNoRootfs = errors.New("private root filesystems need Linux")

func findRootfsTools(bool) (*rootfsTools, error)               { return nil, errNoRootfs }
func prepareHostBase(string) error                             { return errNoRootfs }
func prepareImageBase(string, string) error                    { return errNoRootfs }
func copyLayer(string, string, bool) error                     { return errNoRootfs }
func (r *sandboxRoot) start(string) error                      { return errNoRootfs }
func (r *sandboxRoot) stop()                                   {}
func (r *sandboxRoot) holderPID() int                          { return 0 }
func (r *sandboxRoot) hostCommand(string, ...string) *exec.Cmd { return exec.Command("false") }
func (r *sandboxRoot) command(string, string, []string) *exec.Cmd {
	return exec.Command("false")
}
