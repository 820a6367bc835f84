package builder

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// runStep executes one build step in the build sandbox and returns the
// config the next step starts from.
func (j *buildJob) runStep(step, typ string, st Step) (store.BuildConfig, error) {
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
	env := map[string]string{"PATH": sandboxos.DefaultPath, "HOME": "/root", "USER": "root", "LOGNAME": "root"}
	return os.Expand(v, func(k string) string { return env[k] })
}

// absWorkdir makes a relative WORKDIR absolute against the current one.
func (j *buildJob) absWorkdir(dir string, cfg store.BuildConfig) string {
	if strings.HasPrefix(dir, "/") {
		return path.Clean(dir)
	}
	base := cfg.Workdir
	if base == "" {
		base = HomeOf(cfg.User)
	}
	return path.Join(base, dir)
}

// HomeOf is the home directory the emulator gives a user.
func HomeOf(user string) string {
	if user == "root" {
		return "/root"
	}
	return "/home/user"
}

// command runs cmd through bash -l as envd does, in the config's workdir
// and env, logging each output line with the step (stderr as errors).
func (j *buildJob) command(step, cmd, user string, cfg store.BuildConfig, level string) (int32, error) {
	return j.sb.Run(j.ctx, cmd, user, cfg, func(stderr bool, line string) {
		lvl := level
		if stderr {
			lvl = "error"
		}
		j.log(lvl, step, line)
	})
}

// defaultReadyCmd is E2B's ready command for a template with a start
// command and none of its own (GetDefaultReadyCommand in e2b-dev/infra
// packages/orchestrator/.../phases/finalize/ready.go): it waits 20 s.
const defaultReadyCmd = "sleep 20"

// finalize runs the start command and waits for the ready command, logging
// as E2B's template manager does: "Running start command: <cmd>", the start
// command's output as "[start] [stdout]: <line>", "Waiting for template to be
// ready: <cmd>", the ready command's output and failed attempts at debug
// level, and "Template is ready".
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
		j.log("info", "finalize", "Running start command: "+start)
		err := j.sb.Start(start, cfg.User, cfg, j.commandOutput("start", "info"))
		if err != nil {
			return failStep("finalize", "error starting the start command: %v", err)
		}
	}
	if ready == "" {
		ready = defaultReadyCmd
	}
	j.log("info", "finalize", "Waiting for template to be ready: "+ready)
	err := waitReady(j.ctx, j.sb, ready, cfg, j.bl.backend.ReadyTimeout(), j.commandOutput("ready", "debug"), func(why string) {
		j.log("debug", "finalize", "Template is not ready: "+why)
	})
	if err != nil {
		return failStep("finalize", "error waiting for the ready command '%s': %v", ready, err)
	}
	j.log("info", "finalize", "Template is ready")
	return nil
}

// commandOutput logs a finalize command's output as E2B's template manager
// does: each non-blank line, trimmed, as "[<id>] [stdout|stderr]: <line>".
func (j *buildJob) commandOutput(id, level string) func(stderr bool, line string) {
	return func(stderr bool, line string) {
		stream := "stdout"
		if stderr {
			stream = "stderr"
		}
		for _, l := range strings.Split(line, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				j.log(level, "finalize", fmt.Sprintf("[%s] [%s]: %s", id, stream, l))
			}
		}
	}
}

// WaitReady runs the ready command in sb until it exits 0 or the time is up.
func WaitReady(ctx context.Context, sb Sandbox, ready string, cfg store.BuildConfig, limit time.Duration) error {
	return waitReady(ctx, sb, ready, cfg, limit, func(bool, string) {}, func(string) {})
}

// waitReady is WaitReady passing the command's output to output and the
// reason of each failed attempt to notReady.
func waitReady(ctx context.Context, sb Sandbox, ready string, cfg store.BuildConfig, limit time.Duration,
	output func(stderr bool, line string), notReady func(why string)) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		code, err := sb.Run(ctx, ready, cfg.User, cfg, output)
		if err == nil && code == 0 {
			return nil
		}
		if err != nil {
			notReady(err.Error())
		} else {
			notReady(fmt.Sprintf("exit status %d", code))
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
