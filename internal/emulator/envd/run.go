package envd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// Run starts the command and waits for its end, passing output lines on.
func (sb *Machine) Run(ctx context.Context, c Command, onLine func(stderr bool, line string)) (int32, error) {
	p, sub, err := sb.procs.start(c.config(), c.user(), false, "", nil)
	if err != nil {
		return -1, err
	}
	defer p.unsubscribe(sub)
	var out, errOut bytes.Buffer
	flush := func(buf *bytes.Buffer, stderr, all bool) {
		for {
			i := bytes.IndexByte(buf.Bytes(), '\n')
			if i < 0 {
				if all && buf.Len() > 0 {
					onLine(stderr, buf.String())
					buf.Reset()
				}
				return
			}
			onLine(stderr, string(buf.Next(i + 1)[:i]))
		}
	}
	for {
		select {
		case <-ctx.Done():
			p.signalGroup(sandboxos.SigKill)
			p.unsubscribe(sub) // the end event must not wait for this reader
			<-p.done
			return -1, fmt.Errorf("cancelled")
		case ev := <-sub.ch:
			switch ev.kind {
			case evStdout:
				out.Write(ev.data)
				flush(&out, false, false)
			case evStderr:
				errOut.Write(ev.data)
				flush(&errOut, true, false)
			case evEnd:
				flush(&out, false, true)
				flush(&errOut, true, true)
				return ev.end.ExitCode, nil
			}
		}
	}
}

// Command is a command the emulator itself runs in a sandbox: a template's
// build step, start or ready command. It runs in a login shell, as User
// ("" is user), in Workdir or the user's home.
type Command struct {
	Script, User, Workdir string
	Envs                  map[string]string
}

// user is the user the command runs as.
func (c Command) user() string {
	if c.User == "" {
		return defaultUser
	}
	return c.User
}

// config is the Process/Start config of the command.
func (c Command) config() processConfigJSON {
	envs := copyMap(c.Envs)
	user := c.user()
	envs["USER"], envs["LOGNAME"] = user, user
	cwd := c.Workdir
	if cwd == "" {
		cwd = userHome(user)
	}
	return processConfigJSON{Cmd: "/bin/bash", Args: []string{"-l", "-c", c.Script}, Envs: envs, Cwd: &cwd}
}

// StartBackground starts the command and passes its output lines on until it
// ends, without waiting for it.
func (sb *Machine) StartBackground(c Command, onLine func(stderr bool, line string)) error {
	p, sub, err := sb.procs.start(c.config(), c.user(), false, "start", nil)
	if err != nil {
		return err
	}
	go drainStart(p, sub, onLine)
	return nil
}

// HostPath is the host path that holds p (as envd resolves it) for the emulator's own use.
func (sb *Machine) HostPath(p string) string {
	_, host := sb.resolvePath(p)
	return host
}

// KillAll kills every process of the sandbox.
func (sb *Machine) KillAll() { sb.procs.killAll() }

// Seal ends a build sandbox with a private root: its upper layer becomes dst,
// the rest of it is removed.
func (sb *Machine) Seal(dst string) error {
	sb.procs.killAll()
	sb.root.Stop()
	defer sb.Destroy()
	return os.Rename(sb.root.Upper, dst)
}

// drainStart forwards a start command's output until it ends.
func drainStart(p *process, sub *subscriber, onLine func(stderr bool, line string)) {
	defer p.unsubscribe(sub)
	for ev := range sub.ch {
		switch ev.kind {
		case evStdout, evStderr:
			for _, l := range strings.Split(strings.TrimRight(string(ev.data), "\n"), "\n") {
				onLine(ev.kind == evStderr, l)
			}
		case evEnd:
			return
		}
	}
}
