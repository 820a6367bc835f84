package e2b

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

// DockerfileTemplate is what E2B builds for a Dockerfile: a base image and
// steps, plus a start command from CMD or ENTRYPOINT.
type DockerfileTemplate struct {
	FromImage string
	Steps     []BuildStep
	StartCmd  string
	ReadyCmd  string
	// Warnings name instructions that have no effect in an E2B template.
	Warnings []string
}

// DockerfileError is a Dockerfile E2B cannot build, with the line at fault.
type DockerfileError struct {
	Line    int // 0 when the whole file is at fault
	Message string
}

func (e *DockerfileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("Dockerfile line %d: %s", e.Line, e.Message)
	}
	return "Dockerfile: " + e.Message
}

// dockerfileStartReady is the ready check the SDK gives a start command that
// comes from CMD or ENTRYPOINT: wait 20 seconds.
var dockerfileStartReady = ReadyAfterSeconds(20)

// ParseDockerfile turns a single-stage Dockerfile into E2B steps the way
// E2B's SDK does: the steps run as root in "/" until USER and WORKDIR say
// otherwise, and end as "user" in /home/user unless the file set them; ARG
// and ENV become environment variables; COPY and ADD copy from the context;
// CMD or ENTRYPOINT becomes the start command. Variables in FROM, COPY,
// ADD, ENV, ARG, WORKDIR and USER are expanded as Docker does. What E2B
// cannot build (several stages, COPY --from, RUN --mount, ADD from a URL or
// of an archive, heredocs, HEALTHCHECK, SHELL, ONBUILD) is refused with the
// line at fault.
func ParseDockerfile(text string) (*DockerfileTemplate, error) {
	res, err := parser.Parse(strings.NewReader(text))
	if err != nil {
		return nil, &DockerfileError{Message: err.Error()}
	}
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return nil, &DockerfileError{Message: err.Error()} // names the line itself
	}
	switch {
	case len(stages) == 0:
		return nil, &DockerfileError{Message: "there is no FROM instruction"}
	case len(stages) > 1:
		return nil, &DockerfileError{Line: rangeLine(stages[1].Location), Message: "multi-stage Dockerfiles cannot be built by E2B; keep one FROM"}
	}
	st := stages[0]
	c := &dockerfileConverter{lex: shell.NewLex(res.EscapeToken), env: envMap{}}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			if kv.Value != nil {
				v, _, _ := c.lex.ProcessWord(*kv.Value, c.env)
				c.env.set(kv.Key, v)
			}
		}
	}
	from, err := c.expand(st.BaseName)
	if err != nil || strings.Contains(from, "$") || from == "" {
		return nil, &DockerfileError{Line: rangeLine(st.Location), Message: fmt.Sprintf("cannot resolve the image %q; give an ARG default or the image itself", st.BaseName)}
	}
	if strings.EqualFold(from, "scratch") {
		return nil, &DockerfileError{Line: rangeLine(st.Location), Message: "FROM scratch has no shell for E2B's build steps; start from an image with one"}
	}
	if st.Platform != "" {
		c.out.Warnings = append(c.out.Warnings, fmt.Sprintf("line %d: FROM --platform has no effect: E2B builds for its own platform", rangeLine(st.Location)))
	}
	// Env from before FROM only serves FROM, as in Docker.
	c.env = envMap{}
	c.out.FromImage = from
	c.steps(UserStep("root"), WorkdirStep("/"))
	for _, cmd := range st.Commands {
		if err := c.command(cmd); err != nil {
			return nil, err
		}
	}
	if !c.userSet {
		c.steps(UserStep("user"))
	}
	if !c.workdirSet {
		c.steps(WorkdirStep("/home/user"))
	}
	return &c.out, nil
}

type dockerfileConverter struct {
	lex                 *shell.Lex
	env                 envMap
	out                 DockerfileTemplate
	userSet, workdirSet bool
	entrypoint, cmd     *instructions.ShellDependantCmdLine
}

func (c *dockerfileConverter) steps(s ...BuildStep) { c.out.Steps = append(c.out.Steps, s...) }

func (c *dockerfileConverter) expand(word string) (string, error) {
	v, _, err := c.lex.ProcessWord(word, c.env)
	return v, err
}

func (c *dockerfileConverter) command(cmd instructions.Command) error {
	line := rangeLine(cmd.Location())
	fail := func(format string, a ...any) error {
		return &DockerfileError{Line: line, Message: fmt.Sprintf(format, a...)}
	}
	if ex, ok := cmd.(instructions.SupportsSingleWordExpansion); ok {
		if _, isRun := cmd.(*instructions.RunCommand); !isRun {
			if err := ex.Expand(c.expand); err != nil {
				return fail("%v", err)
			}
		}
	}
	switch x := cmd.(type) {
	case *instructions.RunCommand:
		if len(x.FlagsUsed) > 0 {
			return fail("RUN --%s cannot be built by E2B; remove the flag", x.FlagsUsed[0])
		}
		if len(x.Files) > 0 {
			return fail("RUN with a heredoc cannot be built by E2B; write the script with COPY and run it")
		}
		c.steps(RunStep(commandLine(x.ShellDependantCmdLine), ""))
	case *instructions.CopyCommand:
		if x.From != "" {
			return fail("COPY --from=%s needs another stage; E2B builds single-stage Dockerfiles", x.From)
		}
		if x.Parents || len(x.ExcludePatterns) > 0 {
			return fail("COPY --parents and --exclude cannot be built by E2B")
		}
		return c.copy(fail, x.SourcesAndDest, x.Chown, x.Chmod, false)
	case *instructions.AddCommand:
		if x.Checksum != "" || x.KeepGitDir != nil || x.Unpack != nil || len(x.ExcludePatterns) > 0 {
			return fail("ADD --checksum, --keep-git-dir, --unpack and --exclude cannot be built by E2B; use COPY")
		}
		return c.copy(fail, x.SourcesAndDest, x.Chown, x.Chmod, true)
	case *instructions.EnvCommand:
		var pairs [][2]string
		for _, kv := range x.Env {
			pairs = append(pairs, [2]string{kv.Key, kv.Value})
			c.env.set(kv.Key, kv.Value)
		}
		c.steps(EnvStep(pairs...))
	case *instructions.ArgCommand:
		var pairs [][2]string
		for _, kv := range x.Args {
			v := ""
			if kv.Value != nil {
				v = *kv.Value
			}
			pairs = append(pairs, [2]string{kv.Key, v})
			c.env.set(kv.Key, v)
		}
		c.steps(EnvStep(pairs...))
	case *instructions.WorkdirCommand:
		c.steps(WorkdirStep(x.Path))
		c.workdirSet = true
	case *instructions.UserCommand:
		c.steps(UserStep(x.User))
		c.userSet = true
	case *instructions.CmdCommand:
		c.cmd = &x.ShellDependantCmdLine
		c.setStart()
	case *instructions.EntrypointCommand:
		c.entrypoint = &x.ShellDependantCmdLine
		c.setStart()
	case *instructions.ExposeCommand, *instructions.VolumeCommand, *instructions.LabelCommand,
		*instructions.MaintainerCommand, *instructions.StopSignalCommand:
		c.out.Warnings = append(c.out.Warnings, fmt.Sprintf("line %d: %s has no effect in an E2B template", line, strings.ToUpper(cmd.Name())))
	case *instructions.HealthCheckCommand:
		return fail("HEALTHCHECK cannot be built by E2B; use a ready command instead")
	case *instructions.ShellCommand:
		return fail("SHELL cannot be built by E2B: steps always run in bash")
	case *instructions.OnbuildCommand:
		return fail("ONBUILD cannot be built by E2B")
	default:
		return fail("%s cannot be built by E2B", strings.ToUpper(cmd.Name()))
	}
	return nil
}

func (c *dockerfileConverter) copy(fail func(string, ...any) error, sd instructions.SourcesAndDest, chown, chmod string, add bool) error {
	if len(sd.SourceContents) > 0 {
		return fail("COPY with a heredoc cannot be built by E2B; put the file in the context")
	}
	var mode uint64
	if chmod != "" {
		m, err := strconv.ParseUint(chmod, 8, 32)
		if err != nil || m > 0o7777 {
			return fail("--chmod=%s: E2B takes an octal mode such as 0755", chmod)
		}
		mode = m
	}
	for _, src := range sd.SourcePaths {
		switch {
		case strings.Contains(src, "://") || strings.HasPrefix(src, "git@"):
			return fail("%q is a URL; E2B copies from the context only: download it with RUN", src)
		case add && isArchiveName(src):
			return fail("ADD %s would unpack the archive, which E2B does not do; use COPY and RUN tar", src)
		}
		if err := buildcontext.ValidateCopySource(src); err != nil {
			return fail("%v", err)
		}
		c.steps(CopyStep(src, sd.DestPath, chown, uint32(mode)))
	}
	return nil
}

func isArchiveName(p string) bool {
	for _, ext := range []string{".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst"} {
		if strings.HasSuffix(strings.ToLower(p), ext) {
			return true
		}
	}
	return false
}

// setStart combines ENTRYPOINT and CMD as Docker does: an exec-form
// ENTRYPOINT takes CMD as arguments, a shell-form one ignores it.
func (c *dockerfileConverter) setStart() {
	var start string
	switch {
	case c.entrypoint != nil && c.entrypoint.PrependShell:
		start = commandLine(*c.entrypoint)
	case c.entrypoint != nil && c.cmd != nil:
		start = commandLine(*c.entrypoint) + " " + commandLine(*c.cmd)
	case c.entrypoint != nil:
		start = commandLine(*c.entrypoint)
	case c.cmd != nil:
		start = commandLine(*c.cmd)
	}
	c.out.StartCmd = strings.TrimSpace(start)
	c.out.ReadyCmd = dockerfileStartReady
}

// commandLine is a shell-form command as written, or an exec-form one with
// each argument quoted for the shell E2B runs it in.
func commandLine(c instructions.ShellDependantCmdLine) string {
	if c.PrependShell {
		return strings.Join(c.CmdLine, " ")
	}
	q := make([]string, len(c.CmdLine))
	for i, a := range c.CmdLine {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

func rangeLine(r []parser.Range) int {
	if len(r) == 0 {
		return 0
	}
	return r[0].Start.Line
}

// envMap is the build environment for variable expansion.
type envMap map[string]string

func (m envMap) set(k, v string) { m[k] = v }
func (m envMap) Get(k string) (string, bool) {
	v, ok := m[k]
	return v, ok
}
func (m envMap) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
