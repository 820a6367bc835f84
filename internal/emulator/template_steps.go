package emulator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// runStep executes one build step in the build sandbox and returns the
// config the next step starts from.
func (j *buildJob) runStep(step, typ string, st templateStepJSON) (buildConfig, error) {
	cfg := j.state.config.Clone()
	args := st.Args
	switch typ {
	case "RUN":
		if len(args) < 1 {
			return cfg, failStep(step, "RUN requires command argument")
		}
		user := cfg.User
		if len(args) >= 2 && args[1] != "" {
			user = args[1]
		}
		code, err := j.command(step, args[0], user, cfg, "info")
		if err != nil {
			return cfg, failStep(step, "error building step %s: failed to run command: %v", step, err)
		}
		if code != 0 {
			return cfg, failStep(step, "error building step %s: failed to run command: exit status %d", step, code)
		}
	case "COPY":
		if err := j.copyStep(args, st.FilesHash, cfg); err != nil {
			return cfg, failStep(step, "error building step %s: %v", step, err)
		}
	case "ENV":
		if len(args) == 0 {
			return cfg, failStep(step, "ENV does not support passing no arguments")
		}
		if len(args)%2 != 0 {
			return cfg, failStep(step, "ENV requires both a key and value arguments")
		}
		if cfg.Envs == nil {
			cfg.Envs = map[string]string{}
		}
		for i := 0; i+1 < len(args); i += 2 {
			cfg.Envs[args[i]] = expandAsRoot(args[i+1])
		}
	case "WORKDIR":
		if len(args) < 1 || args[0] == "" {
			return cfg, failStep(step, "WORKDIR requires a path argument")
		}
		code, err := j.command(step, `mkdir -p "`+args[0]+`"`, cfg.User, cfg, "info")
		if err != nil || code != 0 {
			return cfg, failStep(step, "error building step %s: failed to create workdir: exit status %d %v", step, code, errString(err))
		}
		cfg.Workdir = j.absWorkdir(args[0], cfg)
	case "USER":
		if len(args) < 1 || args[0] == "" {
			return cfg, failStep(step, "USER requires a user argument")
		}
		cfg.User = args[0]
	default:
		return cfg, failStep(step, "unsupported step type '%s'", st.Type)
	}
	return cfg, nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// expandAsRoot expands $VAR and ${VAR} in an ENV value the way E2B's
// builder does (envsubst in a root shell, not the template's own env).
func expandAsRoot(v string) string {
	env := map[string]string{"PATH": defaultPath, "HOME": "/root", "USER": "root", "LOGNAME": "root"}
	return os.Expand(v, func(k string) string { return env[k] })
}

// absWorkdir makes a relative WORKDIR absolute against the current one.
func (j *buildJob) absWorkdir(dir string, cfg buildConfig) string {
	if strings.HasPrefix(dir, "/") {
		return path.Clean(dir)
	}
	base := cfg.Workdir
	if base == "" {
		base = homeOf(cfg.User)
	}
	return path.Join(base, dir)
}

// homeOf is the home directory the emulator gives a user.
func homeOf(user string) string {
	if user == "root" {
		return "/root"
	}
	return virtualHome
}

// command runs cmd through bash -l as envd does, in the config's workdir
// and env, logging each output line with the step (stderr as errors).
func (j *buildJob) command(step, cmd, user string, cfg buildConfig, level string) (int32, error) {
	return runLogged(j.ctx, j.sb, cmd, user, cfg, func(stderr bool, line string) {
		lvl := level
		if stderr {
			lvl = "error"
		}
		j.log(lvl, step, line)
	})
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
		cwd = homeOf(user)
	}
	return processConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}, Envs: envs, Cwd: &cwd}
}

// finalize runs the start command and waits for the ready command, as E2B
// does at the end of a build.
func (j *buildJob) finalize() error {
	cfg := j.state.config
	start, ready := "", ""
	if j.req.StartCmd != nil {
		start = *j.req.StartCmd
	}
	if j.req.ReadyCmd != nil {
		ready = *j.req.ReadyCmd
	}
	j.state.config.StartCmd, j.state.config.ReadyCmd = start, ready
	if start == "" && ready == "" {
		return nil
	}
	if err := j.materialize(); err != nil {
		return failStep("finalize", "error preparing the start command: %v", err)
	}
	if start != "" {
		j.log("info", "finalize", "[finalize] START "+start)
		p, sub, err := j.sb.procs.start(commandConfig(start, cfg.User, cfg), false, "start", nil)
		if err != nil {
			return failStep("finalize", "error starting the start command: %v", err)
		}
		go drainStart(p, sub, func(stderr bool, line string) {
			lvl := "info"
			if stderr {
				lvl = "error"
			}
			j.log(lvl, "finalize", line)
		})
	}
	if ready == "" {
		return nil
	}
	j.log("info", "finalize", "[finalize] READY "+ready)
	if err := waitReady(j.ctx, j.sb, ready, cfg, j.s.readyTimeout()); err != nil {
		return failStep("finalize", "error waiting for the ready command '%s': %v", ready, err)
	}
	return nil
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

// waitReady runs the ready command until it exits 0 or the time is up.
func waitReady(ctx context.Context, sb *sandbox, ready string, cfg buildConfig, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		code, err := runLogged(ctx, sb, ready, cfg.User, cfg, func(bool, string) {})
		if err == nil && code == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("not ready after %s: %v", limit, err)
			}
			return fmt.Errorf("not ready after %s (last exit status %d)", limit, code)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
