package controlplane

import (
	"context"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/builder"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// buildBackend is what the builder gets of the control plane: machines for build
// sandboxes (they have no record: the control plane never sees them), the
// image store and the uploaded file contexts.
type buildBackend struct {
	// startMachine starts a build sandbox's machine; forget tells the
	// egress proxy, once it is destroyed or sealed, that it is gone.
	startMachine func(t store.Template, b store.Build) (m *envd.Machine, forget func(), err error)
	resolveImage func(name string) (key, level, note string, err error)
	filesArchive func(hash string) (string, bool)
	readyTimeout time.Duration
}

func (s *API) newBuildBackend() buildBackend {
	return buildBackend{
		startMachine: func(t store.Template, b store.Build) (*envd.Machine, func(), error) {
			id := ids.New("i", 20)
			// Known to the egress proxy before any of its processes can ask.
			s.builds.add(id)
			forget := func() { s.builds.remove(id) }
			m, err := s.startMachine(id, t, b, nil, nil, false)
			if err != nil {
				forget()
			}
			return m, forget, err
		},
		resolveImage: s.resolveImage,
		filesArchive: func(hash string) (string, bool) {
			if !filesHashPattern.MatchString(hash) || !s.hasFilesArchive(hash) {
				return "", false
			}
			return s.filesArchivePath(hash), true
		},
		readyTimeout: s.readyTimeout(),
	}
}

func (h buildBackend) NewSandbox(t store.Template, b store.Build) (builder.Sandbox, error) {
	m, forget, err := h.startMachine(t, b)
	if err != nil {
		return nil, err
	}
	return buildSandbox{sb: m, forget: forget}, nil
}

func (h buildBackend) ResolveImage(name string) (key, level, note string, err error) {
	return h.resolveImage(name)
}

func (h buildBackend) FilesArchive(hash string) (string, bool) { return h.filesArchive(hash) }

func (h buildBackend) ReadyTimeout() time.Duration { return h.readyTimeout }

// buildSandbox is a sandbox as the builder (and a template's start and
// ready commands) use it.
type buildSandbox struct {
	sb     *envd.Machine
	forget func() // the egress proxy's end of a build sandbox; nil in a created sandbox
}

func (b buildSandbox) Run(ctx context.Context, cmd, user string, cfg buildConfig, onLine func(stderr bool, line string)) (int32, error) {
	return b.sb.Run(ctx, command(cmd, user, cfg), onLine)
}

func (b buildSandbox) Start(cmd, user string, cfg buildConfig, onLine func(stderr bool, line string)) error {
	return b.sb.StartBackground(command(cmd, user, cfg), onLine)
}

func (b buildSandbox) HostPath(p string) string {
	return b.sb.HostPath(p)
}

func (b buildSandbox) Give(host, owner string) error { return b.sb.Give(host, owner) }

func (b buildSandbox) Private() bool { return b.sb.Root() != nil }
func (b buildSandbox) Dir() string   { return b.sb.Dir() }
func (b buildSandbox) KillAll()      { b.sb.KillAll() }
func (b buildSandbox) Destroy() {
	b.sb.Destroy()
	b.ended()
}

func (b buildSandbox) Seal(dst string) error {
	defer b.ended()
	return b.sb.Seal(dst)
}

// ended tells the egress proxy that the build sandbox is gone.
func (b buildSandbox) ended() {
	if b.forget != nil {
		b.forget()
	}
}

// command is a build's or a template's command as the sandbox runs it.
func command(cmd, user string, cfg buildConfig) envd.Command {
	return envd.Command{Script: cmd, User: user, Envs: cfg.Envs, Workdir: cfg.Workdir}
}
