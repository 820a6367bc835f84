//go:build !linux

package sandboxos

import (
	"errors"
	"os/exec"
)

var ErrNoRootfs = errors.New("private root filesystems need Linux")

func FindRootfsTools(bool) (*Tools, error)              { return nil, ErrNoRootfs }
func PrepareHostBase(string) error                      { return ErrNoRootfs }
func PrepareImageBase(string, string) error             { return ErrNoRootfs }
func CopyLayer(string, string, bool) error              { return ErrNoRootfs }
func (r *Root) Start(string) error                      { return ErrNoRootfs }
func (r *Root) Stop()                                   {}
func (r *Root) HolderPID() int                          { return 0 }
func (r *Root) InitPID() int                            { return 0 }
func (r *Root) CommandPID(launcher int) int             { return launcher }
func (r *Root) ShowLine(string, string) error           { return ErrNoRootfs }
func (r *Root) HostCommand(string, ...string) *exec.Cmd { return exec.Command("false") }
func (r *Root) Command(string, string, []string, *Identity) *exec.Cmd {
	return exec.Command("false")
}
func (r *Root) SetEnv(cmd *exec.Cmd, env []string) { cmd.Env = env }

func fuseNode(string) string { return "" }
