package emulator

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
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/state"
)

// A build runs in its own unregistered sandbox: the base's files, then each
// step in order (RUN/COPY/ENV/WORKDIR/USER), then the start and ready
// commands. Every finished step is kept in the step cache under the hash of
// its inputs chained to the previous step's, as E2B's layers are; the
// finished build's files become an immutable directory of the template.

type buildJob struct {
	s       *Server
	t       state.Template // as it was when the build started
	buildID string
	req     buildStartJSON
	ctx     context.Context
	cancel  context.CancelFunc
	sb      *sandbox // the build sandbox, nil until the first step runs
	state   buildState
}

// buildState is the files and config a build has reached so far.
type buildState struct {
	hash     string
	filesDir string   // shared layout: a cached copy the sandbox does not hold yet ("" = sandbox is current)
	layers   []string // private roots: the layers so far, newest first
	base     string   // private roots: the base root
	config   buildConfig
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

// newBuildJobLocked marks the build building (the store cancels an older
// build of the template that is still running). Caller holds s.mu, so that
// Close waits for the job.
func (s *Server) newBuildJobLocked(templateID, buildID string, req buildStartJSON) (*buildJob, error) {
	ctx, cancel := context.WithCancel(context.Background())
	t, err := s.store.StartBuild(templateID, buildID, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	s.buildsRunning.Add(1)
	return &buildJob{s: s, t: t, buildID: buildID, req: req, ctx: ctx, cancel: cancel}, nil
}

func hashKeys(keys ...string) string {
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// log appends a build log entry; step is "" for build-wide lines.
func (j *buildJob) log(level, step, msg string) {
	e := buildLogEntryJSON{Timestamp: time.Now().UTC(), Message: msg, Level: level}
	if step != "" {
		e.Step = &step
	}
	j.s.store.AppendBuildLog(j.t.ID, j.buildID, e)
}

func (j *buildJob) run() {
	defer j.s.buildsRunning.Done()
	defer j.cancel()
	start := time.Now()
	j.log("info", "", "Building template "+j.t.ID+"/"+j.buildID)
	err := j.steps()
	if err == nil {
		err = j.finalize()
	}
	var layer string
	if err == nil {
		layer, err = j.keepLayer()
	}
	if j.sb != nil {
		j.sb.destroy()
	}
	if err == nil && j.ctx.Err() != nil {
		err = failStep("", "build was cancelled")
	}
	now := time.Now().UTC()
	if err != nil {
		if layer != "" {
			_ = os.RemoveAll(layer)
		}
		reason := &buildReasonJSON{Message: err.Error()}
		var bf *buildFailure
		if errors.As(err, &bf) && bf.step != "" {
			reason.Step = &bf.step
		}
		j.s.store.FinishBuild(j.t.ID, j.buildID, state.BuildResult{Reason: reason,
			Last: buildLogEntryJSON{Timestamp: now, Level: "error", Message: "Build failed: " + err.Error(), Step: reason.Step}}, now)
		return
	}
	j.s.store.FinishBuild(j.t.ID, j.buildID, state.BuildResult{
		FilesDir: layer, Layers: j.state.layers, Base: j.state.base, Config: j.state.config,
		Last: buildLogEntryJSON{Timestamp: now, Level: "info",
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
		_, b, found := j.s.store.ResolveBuild(ref)
		if !found {
			return failStep("base", "base template '%s' not found", ref)
		}
		j.state = buildState{hash: hashKeys("template", b.ID), filesDir: b.FilesDir, layers: b.Layers, base: b.Base, config: b.Config.Clone()}
		j.log("info", "base", layerInfo(false, "base", "FROM TEMPLATE "+ref, j.state.hash))
	default:
		image := baseImageName
		if req.FromImage != nil && *req.FromImage != "" {
			image = *req.FromImage
		}
		j.s.store.SetBuildImage(j.t.ID, j.buildID, image)
		key, level, note, err := j.s.resolveImage(image)
		if err != nil {
			return failStep("base", "error preparing image '%s': %v", image, err)
		}
		j.state = buildState{hash: hashKeys("image", image, key), base: key, config: buildConfig{User: "user"}}
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
		hash := hashKeys(j.state.hash, typ, strings.Join(st.Args, " "), files)
		prefix := fmt.Sprintf("builder %d/%d", i+1, n)
		text := strings.TrimSpace(typ + " " + strings.Join(st.Args, " "))
		if !j.req.Force && !st.Force {
			if c, ok := j.s.store.CachedLayer(hash); ok {
				j.log("info", step, layerInfo(true, prefix, text, hash))
				if j.sb != nil {
					j.sb.destroy()
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
		if j.sb.root != nil {
			if err := j.sealStep(hash); err != nil {
				return failStep(step, "error saving step %s: %v", step, err)
			}
		} else if err := j.s.storeLayer(hash, j.sb.dir, state.Layer{Config: cfg}); err != nil {
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
		j.sb.destroy()
		j.sb = nil
	}
	j.s.mu.Lock()
	sb, err := j.s.newSandboxLocked(j.t, state.Build{FilesDir: j.state.filesDir, Layers: j.state.layers, Base: j.state.base}, j.t.ID, nil)
	j.s.mu.Unlock()
	if err != nil {
		return err
	}
	sb.startedAt = time.Now().UTC()
	j.sb, j.state.filesDir = sb, ""
	return nil
}

// keepLayer moves the build sandbox's files (or the cached layer it ended
// on) to the template's directory, where they never change again.
func (j *buildJob) keepLayer() (string, error) {
	if j.s.rootfs != nil {
		return "", nil // the layers are immutable already
	}
	dst := filepath.Join(j.s.dataDir, "templates", j.t.ID+"-"+j.buildID)
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
	j.sb.procs.killAll()
	if err := hostfs.CopyTree(j.sb.dir, dst); err != nil {
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
	sb.procs.killAll()
	sb.root.Stop()
	defer sb.destroy()
	dir := filepath.Join(j.s.dataDir, "layers", hash[:16]+newID("", 4))
	if err := os.Rename(sb.root.Upper, dir); err != nil {
		return err
	}
	j.state.layers = append([]string{dir}, j.state.layers...)
	return j.s.storeLayer(hash, "", state.Layer{Layers: j.state.layers, Base: j.state.base, Config: j.state.config})
}

// storeLayer records a step's result in the cache (first writer wins),
// copying src (shared layout) into the cache. layerMu keeps the check, the
// rename and the record of one hash together.
func (s *Server) storeLayer(hash, src string, entry state.Layer) error {
	if src == "" {
		s.store.StoreLayer(hash, entry)
		return nil
	}
	if _, ok := s.store.CachedLayer(hash); ok {
		return nil
	}
	dir := filepath.Join(s.dataDir, "layers", hash)
	tmp := dir + ".part-" + newID("", 8)
	if err := hostfs.CopyTree(src, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	s.layerMu.Lock()
	defer s.layerMu.Unlock()
	if _, ok := s.store.CachedLayer(hash); ok {
		_ = os.RemoveAll(tmp)
		return nil
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	entry.Dir = dir
	s.store.StoreLayer(hash, entry)
	return nil
}
