package builder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Step is E2B's TemplateStep.
type Step struct {
	Type      string   `json:"type"`
	Args      []string `json:"args"`
	FilesHash *string  `json:"filesHash"`
	Force     bool     `json:"force"`
}

// Request is E2B's TemplateBuildStartV2.
type Request struct {
	FromImage         *string         `json:"fromImage"`
	FromTemplate      *string         `json:"fromTemplate"`
	FromImageRegistry *map[string]any `json:"fromImageRegistry"`
	Force             bool            `json:"force"`
	Steps             []Step          `json:"steps"`
	StartCmd          *string         `json:"startCmd"`
	ReadyCmd          *string         `json:"readyCmd"`
}

// Sandbox is a build sandbox: a sandbox the control plane does not list.
type Sandbox interface {
	// Run runs cmd through bash -l as envd does, as user in the config's
	// workdir and env, passing each output line on; it ends the command
	// when ctx ends.
	Run(ctx context.Context, cmd, user string, cfg store.BuildConfig, onLine func(stderr bool, line string)) (int32, error)
	// Start starts cmd as Run does and passes its output on until it ends.
	Start(cmd, user string, cfg store.BuildConfig, onLine func(stderr bool, line string)) error
	// HostPath is where a path inside the sandbox is on the host.
	HostPath(p string) string
	// Give gives the file at host (a HostPath) to owner, "user" or
	// "user:group" as the sandbox's accounts name them.
	Give(host, owner string) error
	// Private reports a private root: the sandbox's own layer is sealed
	// (Seal) instead of copying its directory (Dir).
	Private() bool
	// Dir is the sandbox's directory (shared layout).
	Dir() string
	// KillAll ends every process of the sandbox.
	KillAll()
	// Seal stops the sandbox, moves its own layer to dst and destroys it.
	Seal(dst string) error
	// Destroy ends the sandbox and removes its files.
	Destroy()
}

// Host is what a build needs of the emulator.
type Backend interface {
	// NewSandbox starts a build sandbox of template t on the files, layers
	// and base of b.
	NewSandbox(t store.Template, b store.Build) (Sandbox, error)
	// ResolveImage prepares an image: its base key, and a build-log line
	// (level, note) saying what the build starts from.
	ResolveImage(name string) (key, level, note string, err error)
	// FilesArchive is the uploaded file context of a step's files hash.
	FilesArchive(hash string) (path string, ok bool)
	// ReadyTimeout bounds a ready command.
	ReadyTimeout() time.Duration
}

// Builder runs the builds of one emulator.
type Builder struct {
	store        *store.Store
	backend      Backend
	dataDir      string
	privateRoots bool
	running      sync.WaitGroup
	layerMu      sync.Mutex // orders step-cache copies (shared layout)
}

// New returns a builder keeping records in store and files under dataDir
// (templates, layers, template-files); privateRoots: the sandboxes have
// private roots, whose layers are immutable already.
func New(store *store.Store, backend Backend, dataDir string, privateRoots bool) *Builder {
	return &Builder{store: store, backend: backend, dataDir: dataDir, privateRoots: privateRoots}
}

// Wait waits for the running builds to end.
func (bl *Builder) Wait() { bl.running.Wait() }

type buildJob struct {
	bl      *Builder
	t       store.Template // as it was when the build started
	buildID string
	req     Request
	ctx     context.Context
	cancel  context.CancelFunc
	sb      Sandbox // the build sandbox, nil until the first step runs
	state   buildState
	// baseLayers is how many of state.layers the base brought (private roots).
	baseLayers int
}

// buildState is the files and config a build has reached so far.
type buildState struct {
	hash     string
	filesDir string   // shared layout: a cached copy the sandbox does not hold yet ("" = sandbox is current)
	layers   []string // private roots: the layers so far, newest first
	base     string   // private roots: the base root
	config   store.BuildConfig
}

// buildFailure is a failed build's reason.
type buildFailure struct {
	step string
	msg  string
}

func (e *buildFailure) Error() string { return e.msg }

func failStep(step, format string, args ...any) error {
	return &buildFailure{step: step, msg: fmt.Sprintf(format, args...)}
}

// Start marks a waiting build building (the store cancels an older build
// of the template still running) and runs it in the background; errors
// are the store's (store.ErrNotFound, store.ErrNotWaiting). A caller that
// stops the builds (the store's CancelBuilds) and then calls Wait must
// order Start before that, under a lock of its own.
func (bl *Builder) Start(templateID, buildID string, req Request) error {
	ctx, cancel := context.WithCancel(context.Background())
	t, err := bl.store.StartBuild(templateID, buildID, cancel)
	if err != nil {
		cancel()
		return err
	}
	bl.running.Add(1)
	j := &buildJob{bl: bl, t: t, buildID: buildID, req: req, ctx: ctx, cancel: cancel}
	go j.run()
	return nil
}

// HashKeys hashes keys, each ended by a zero byte.
func HashKeys(keys ...string) string {
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// log appends a build log entry; step is "" for build-wide lines.
func (j *buildJob) log(level, step, msg string) {
	e := store.BuildLogEntry{Timestamp: time.Now().UTC(), Message: msg, Level: level}
	if step != "" {
		e.Step = &step
	}
	j.bl.store.AppendBuildLog(j.t.ID, j.buildID, e)
}

func (j *buildJob) run() {
	defer j.bl.running.Done()
	defer j.cancel()
	start := time.Now()
	j.log("info", "", "Building template "+j.t.ID+"/"+j.buildID)
	err := j.steps()
	if err == nil {
		err = j.trustCAs()
	}
	if err == nil {
		err = j.finalize()
	}
	var layer string
	if err == nil {
		layer, err = j.keepLayer()
	}
	if j.sb != nil {
		j.sb.Destroy()
	}
	if err == nil && j.ctx.Err() != nil {
		err = failStep("", "build was cancelled")
	}
	now := time.Now().UTC()
	if err != nil {
		if layer != "" {
			_ = os.RemoveAll(layer)
		}
		reason := &store.BuildReason{Message: err.Error()}
		var bf *buildFailure
		if errors.As(err, &bf) && bf.step != "" {
			reason.Step = &bf.step
		}
		j.bl.store.FinishBuild(j.t.ID, j.buildID, store.BuildResult{Reason: reason,
			Last: store.BuildLogEntry{Timestamp: now, Level: "error", Message: "Build failed: " + err.Error(), Step: reason.Step}}, now)
		return
	}
	j.bl.store.FinishBuild(j.t.ID, j.buildID, store.BuildResult{
		FilesDir: layer, Layers: j.state.layers, Base: j.state.base, Config: j.state.config,
		Last: store.BuildLogEntry{Timestamp: now, Level: "info",
			Message: fmt.Sprintf("Build finished, took %s", time.Since(start).Round(time.Millisecond))},
	}, now)
}

// base resolves the build's starting point: a built template (or snapshot),
// or an image (resolveImage).
func (j *buildJob) base() error {
	req := j.req
	switch {
	case req.FromTemplate != nil && *req.FromTemplate != "":
		ref := *req.FromTemplate
		_, b, found := j.bl.store.ResolveBuild(ref)
		if !found {
			return failStep("base", "base template '%s' not found", ref)
		}
		j.state = buildState{hash: HashKeys("template", b.ID), filesDir: b.FilesDir, layers: b.Layers, base: b.Base, config: b.Config.Clone()}
		j.log("info", "base", layerInfo(false, "base", "FROM TEMPLATE "+ref, j.state.hash))
	default:
		image := BaseImage
		if req.FromImage != nil && *req.FromImage != "" {
			image = *req.FromImage
		}
		j.bl.store.SetBuildImage(j.t.ID, j.buildID, image)
		key, level, note, err := j.bl.backend.ResolveImage(image)
		if err != nil {
			return failStep("base", "error preparing image '%s': %v", image, err)
		}
		j.state = buildState{hash: HashKeys("image", image, key), base: key, config: store.BuildConfig{User: "user"}}
		j.log("info", "base", layerInfo(false, "base", "FROM "+image, j.state.hash))
		j.log(level, "base", note)
	}
	return nil
}

// layerInfo words a step line like E2B's builder: "[prefix] text [hash]".
func layerInfo(cached bool, prefix, text, hash string) string {
	c := ""
	if cached {
		c = "CACHED "
	}
	return fmt.Sprintf("%s[%s] %s [%s]", c, prefix, text, hash)
}

func (j *buildJob) steps() error {
	if err := j.base(); err != nil {
		return err
	}
	j.baseLayers = len(j.state.layers)
	n := len(j.req.Steps)
	for i, st := range j.req.Steps {
		if err := j.ctx.Err(); err != nil {
			return failStep("", "build was cancelled")
		}
		step := strconv.Itoa(i + 1)
		files := ""
		if st.FilesHash != nil {
			files = *st.FilesHash
		}
		typ := strings.ToUpper(st.Type)
		hash := HashKeys(j.state.hash, typ, strings.Join(st.Args, " "), files)
		prefix := fmt.Sprintf("builder %d/%d", i+1, n)
		text := strings.TrimSpace(typ + " " + strings.Join(st.Args, " "))
		if !j.req.Force && !st.Force {
			if c, ok := j.bl.store.CachedLayer(hash); ok {
				j.log("info", step, layerInfo(true, prefix, text, hash))
				if j.sb != nil {
					j.sb.Destroy()
					j.sb = nil
				}
				j.state = buildState{hash: hash, filesDir: c.Dir, layers: c.Layers, base: c.Base, config: c.Config.Clone()}
				continue
			}
		}
		j.log("info", step, layerInfo(false, prefix, text, hash))
		if err := j.materialize(); err != nil {
			return failStep(step, "error preparing step %s: %v", step, err)
		}
		cfg, err := j.runStep(step, typ, st)
		if err != nil {
			return err
		}
		j.state.hash, j.state.config = hash, cfg
		if j.sb.Private() {
			if err := j.sealStep(hash); err != nil {
				return failStep(step, "error saving step %s: %v", step, err)
			}
		} else if err := j.bl.storeLayer(hash, j.sb.Dir(), store.Layer{Config: cfg}); err != nil {
			j.log("warn", step, "step not cached: "+err.Error())
		}
	}
	return nil
}

// materialize makes sure the build sandbox exists and holds the current state.
func (j *buildJob) materialize() error {
	if j.sb != nil && j.state.filesDir == "" {
		return nil
	}
	if j.sb != nil {
		j.sb.Destroy()
		j.sb = nil
	}
	sb, err := j.bl.backend.NewSandbox(j.t, store.Build{FilesDir: j.state.filesDir, Layers: j.state.layers, Base: j.state.base})
	if err != nil {
		return err
	}
	j.sb, j.state.filesDir = sb, ""
	return nil
}

// keepLayer moves the build sandbox's files (or the cached layer it ended
// on) to the template's directory, where they never change again.
func (j *buildJob) keepLayer() (string, error) {
	if j.bl.privateRoots {
		return "", nil // the layers are immutable already
	}
	dst := filepath.Join(j.bl.dataDir, "templates", j.t.ID+"-"+j.buildID)
	if j.state.filesDir == "" && j.sb == nil {
		return "", nil // no step ran and the base has no files
	}
	if j.state.filesDir != "" {
		if err := hostfs.CopyTree(j.state.filesDir, dst); err != nil {
			_ = os.RemoveAll(dst)
			return "", failStep("finalize", "error saving the build: %v", err)
		}
		return dst, nil
	}
	j.sb.KillAll()
	if err := hostfs.CopyTree(j.sb.Dir(), dst); err != nil {
		_ = os.RemoveAll(dst)
		return "", failStep("finalize", "error saving the build: %v", err)
	}
	return dst, nil
}

// sealStep turns the build sandbox's own layer into the step's immutable
// layer (private roots): the sandbox stops, its upper directory moves.
func (j *buildJob) sealStep(hash string) error {
	sb := j.sb
	j.sb = nil
	dir := filepath.Join(j.bl.dataDir, "layers", hash[:16]+ids.New("", 4))
	if err := sb.Seal(dir); err != nil {
		return err
	}
	j.state.layers = append([]string{dir}, j.state.layers...)
	return j.bl.storeLayer(hash, "", store.Layer{Layers: j.state.layers, Base: j.state.base, Config: j.state.config})
}

// storeLayer records a step's result in the cache (first writer wins),
// copying src (shared layout) into the cache. layerMu keeps the check, the
// rename and the record of one hash together.
func (bl *Builder) storeLayer(hash, src string, entry store.Layer) error {
	if src == "" {
		bl.store.StoreLayer(hash, entry)
		return nil
	}
	if _, ok := bl.store.CachedLayer(hash); ok {
		return nil
	}
	dir := filepath.Join(bl.dataDir, "layers", hash)
	tmp := dir + ".part-" + ids.New("", 8)
	if err := hostfs.CopyTree(src, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	bl.layerMu.Lock()
	defer bl.layerMu.Unlock()
	if _, ok := bl.store.CachedLayer(hash); ok {
		_ = os.RemoveAll(tmp)
		return nil
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	entry.Dir = dir
	bl.store.StoreLayer(hash, entry)
	return nil
}

// BaseImage is E2B's base image, which the emulator's base root stands in
// for; a build naming no base starts from it.
const BaseImage = "e2bdev/base"
