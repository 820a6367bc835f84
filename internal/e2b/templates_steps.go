package e2b

import (
	"fmt"
	"regexp"
	"strings"
)

// Step types as E2B receives them.
const (
	StepRun     = "RUN"
	StepCopy    = "COPY"
	StepEnv     = "ENV"
	StepWorkdir = "WORKDIR"
	StepUser    = "USER"
)

// BuildStep is a step plus what only the client needs to know about it.
type BuildStep struct {
	TemplateStep
	ResolveSymlinks bool // COPY: send the targets of links instead of the links
	ForceUpload     bool // COPY: upload the files even when E2B has them
}

// The constructors below encode steps exactly as E2B's SDK does, so that a
// template defined here and the same one defined with the SDK share E2B's
// build cache.

// RunStep runs a shell command, as user when set.
func RunStep(command, user string) BuildStep {
	args := []string{command}
	if user != "" {
		args = append(args, user)
	}
	return BuildStep{TemplateStep: TemplateStep{Type: StepRun, Args: args}}
}

// CopyStep copies src (a path or glob in the context) to dest, owned by user
// when set, with mode (0 keeps the files' modes).
func CopyStep(src, dest, user string, mode uint32) BuildStep {
	m := ""
	if mode != 0 {
		m = fmt.Sprintf("%04o", mode)
	}
	return BuildStep{TemplateStep: TemplateStep{Type: StepCopy, Args: []string{src, dest, user, m}}}
}

// EnvStep sets environment variables, in the order given.
func EnvStep(pairs ...[2]string) BuildStep {
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	return BuildStep{TemplateStep: TemplateStep{Type: StepEnv, Args: args}}
}

// WorkdirStep sets the working directory of later steps and of sandboxes.
func WorkdirStep(dir string) BuildStep {
	return BuildStep{TemplateStep: TemplateStep{Type: StepWorkdir, Args: []string{dir}}}
}

// UserStep sets the user of later steps and of sandboxes.
func UserStep(user string) BuildStep {
	return BuildStep{TemplateStep: TemplateStep{Type: StepUser, Args: []string{user}}}
}

// Describe renders a step the way a Dockerfile line reads, for messages.
func (s TemplateStep) Describe() string {
	switch s.Type {
	case StepRun:
		if len(s.Args) > 1 && s.Args[1] != "" {
			return fmt.Sprintf("RUN (as %s) %s", s.Args[1], firstArg(s.Args))
		}
		return "RUN " + firstArg(s.Args)
	case StepCopy:
		if len(s.Args) >= 2 {
			return "COPY " + s.Args[0] + " " + s.Args[1]
		}
	case StepEnv:
		var kv []string
		for i := 0; i+1 < len(s.Args); i += 2 {
			kv = append(kv, s.Args[i]+"=…") // values may be secret
		}
		return "ENV " + strings.Join(kv, " ")
	}
	return strings.TrimSpace(s.Type + " " + strings.Join(s.Args, " "))
}

func firstArg(a []string) string {
	if len(a) == 0 {
		return ""
	}
	return a[0]
}

var unsafeShellChar = regexp.MustCompile(`[^\w@%+=:,./-]`)

// ShellQuote quotes s for a POSIX shell like Python's shlex.quote (and the
// SDK): safe strings stay as they are, so generated commands are stable.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !unsafeShellChar.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// Ready checks, spelled as the SDK spells them.

// ReadyForPort waits until something listens on port.
func ReadyForPort(port int) string {
	return fmt.Sprintf(`[ -n "$(ss -Htuln sport = :%d)" ]`, port)
}

// ReadyForURL waits until url answers with status.
func ReadyForURL(url string, status int) string {
	if status == 0 {
		status = 200
	}
	return fmt.Sprintf(`curl -s -o /dev/null -w "%%{http_code}" %s | grep -q "%d"`, ShellQuote(url), status)
}

// ReadyForProcess waits until a process with that name runs.
func ReadyForProcess(name string) string {
	return "pgrep " + ShellQuote(name) + " > /dev/null"
}

// ReadyForFile waits until the file exists.
func ReadyForFile(path string) string {
	return "[ -f " + ShellQuote(path) + " ]"
}

// ReadyAfterSeconds waits a fixed time (at least one second).
func ReadyAfterSeconds(seconds int) string {
	return fmt.Sprintf("sleep %d", max(1, seconds))
}
