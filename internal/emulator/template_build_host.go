package emulator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// buildHost is what the builder gets of the server: build sandboxes, the
// image store and the uploaded file contexts.
type buildHost struct{ s *Server }

func (h buildHost) NewSandbox(t state.Template, b state.Build) (builder.Sandbox, error) {
	h.s.mu.Lock()
	sb, err := h.s.newSandboxLocked(t, b, t.ID, nil)
	h.s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	sb.startedAt = time.Now().UTC()
	return buildSandbox{sb}, nil
}

func (h buildHost) ResolveImage(name string) (key, level, note string, err error) {
	return h.s.resolveImage(name)
}

func (h buildHost) FilesArchive(hash string) (string, bool) {
	if !filesHashPattern.MatchString(hash) || !h.s.hasFilesArchive(hash) {
		return "", false
	}
	return h.s.filesArchivePath(hash), true
}

func (h buildHost) ReadyTimeout() time.Duration { return h.s.readyTimeout() }

// buildSandbox is a sandbox as the builder (and a template's start and
// ready commands) use it.
type buildSandbox struct{ sb *sandbox }

func (b buildSandbox) Run(ctx context.Context, cmd, user string, cfg buildConfig, onLine func(stderr bool, line string)) (int32, error) {
	return runLogged(ctx, b.sb, cmd, user, cfg, onLine)
}

func (b buildSandbox) Start(cmd, user string, cfg buildConfig, onLine func(stderr bool, line string)) error {
	p, sub, err := b.sb.procs.start(commandConfig(cmd, user, cfg), false, "start", nil)
	if err != nil {
		return err
	}
	go drainStart(p, sub, onLine)
	return nil
}

func (b buildSandbox) HostPath(p string) string {
	_, host := b.sb.resolvePath(p)
	return host
}

func (b buildSandbox) Private() bool { return b.sb.root != nil }
func (b buildSandbox) Dir() string   { return b.sb.dir }
func (b buildSandbox) KillAll()      { b.sb.procs.killAll() }
func (b buildSandbox) Destroy()      { b.sb.destroy() }

func (b buildSandbox) Seal(dst string) error {
	b.sb.procs.killAll()
	b.sb.root.Stop()
	defer b.sb.destroy()
	return os.Rename(b.sb.root.Upper, dst)
}

// runLogged starts cmd in sb and waits for its end, passing output lines on.
func runLogged(ctx context.Context, sb *sandbox, cmd, user string, cfg buildConfig, onLine func(stderr bool, line string)) (int32, error) {
	p, sub, err := sb.procs.start(commandConfig(cmd, user, cfg), false, "", nil)
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

// commandConfig is the Process/Start config a build or start command uses.
func commandConfig(cmd, user string, cfg buildConfig) processConfig {
	envs := copyMap(cfg.Envs)
	if user == "" {
		user = "user"
	}
	envs["USER"], envs["LOGNAME"] = user, user
	cwd := cfg.Workdir
	if cwd == "" {
		cwd = builder.HomeOf(user)
	}
	return processConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}, Envs: envs, Cwd: &cwd}
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
