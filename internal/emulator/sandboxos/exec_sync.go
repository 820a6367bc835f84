package sandboxos

import (
	"os"
	"os/exec"
	"time"
)

// execSyncTimeout bounds the wait for a wrapper that never execs.
const execSyncTimeout = 10 * time.Second

// ExecSync lets start wait until the isolation wrapper has exec'd the
// command itself. envd's start event means the command runs; the wrapper's
// mounts are no part of the command, and a pause right after the start
// event must find the command running, not still being set up.
type ExecSync struct {
	r, w *os.File
}

// NewExecSync hands cmd the write end of a pipe as fd 3, which the wrapper
// closes as it execs (`exec 3>&- "$@"`), or which closes when it exits. A
// wrapper whose parent keeps a copy of fd 3 (nsenter entering a PID
// namespace) writes a byte first.
func NewExecSync(cmd *exec.Cmd) (*ExecSync, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	if len(cmd.ExtraFiles) > 0 && cmd.ExtraFiles[0] == nil {
		cmd.ExtraFiles[0] = w // a place kept for it (Root.Command)
	} else {
		cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
	}
	return &ExecSync{r: r, w: w}, nil
}

// Wait, after a successful Start, returns once the command has been exec'd.
func (s *ExecSync) Wait() {
	_ = s.w.Close()
	done := make(chan struct{})
	go func() {
		_, _ = s.r.Read(make([]byte, 1)) // a byte, or EOF: no writer left
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(execSyncTimeout):
	}
	_ = s.r.Close()
}

// Abort releases the pipe when Start failed.
func (s *ExecSync) Abort() { CloseAll(s.r, s.w) }
