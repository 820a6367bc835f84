package emulator

import (
	"io"
	"os"
	"os/exec"
	"time"
)

// execSyncTimeout bounds the wait for a wrapper that never execs.
const execSyncTimeout = 10 * time.Second

// execSync lets start wait until the isolation wrapper has exec'd the
// command itself. envd's start event means the command runs; the wrapper's
// mounts are no part of the command, and a pause right after the start
// event must find the command running, not still being set up.
type execSync struct {
	r, w *os.File
}

// newExecSync hands cmd the write end of a pipe as fd 3, which the wrapper
// closes as it execs (`exec 3>&- "$@"`), or which closes when it exits.
func newExecSync(cmd *exec.Cmd) (*execSync, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = append([]*os.File{w}, cmd.ExtraFiles...)
	return &execSync{r: r, w: w}, nil
}

// wait, after a successful Start, returns once the command has been exec'd.
func (s *execSync) wait() {
	_ = s.w.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, s.r) // EOF: no writer left
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(execSyncTimeout):
	}
	_ = s.r.Close()
}

// abort releases the pipe when Start failed.
func (s *execSync) abort() { closeAll(s.r, s.w) }
