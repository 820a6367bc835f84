package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// With a file to keep them in (OpenTemplates), templates, builds, tags and
// the step cache are saved there whenever a template, build or tag changes,
// and loaded by the next run: a killed emulator loses no finished build. A
// build that was running is loaded as failed; its template and tags stay.

type savedState struct {
	Templates []savedTemplate  `json:"templates"`
	StepCache map[string]Layer `json:"stepCache"`
}

type savedTemplate struct {
	ID         string       `json:"id"`
	Names      []string     `json:"names"`
	Public     bool         `json:"public"`
	Snapshot   bool         `json:"snapshot"`
	CPUCount   int32        `json:"cpuCount"`
	MemoryMB   int32        `json:"memoryMB"`
	DiskSizeMB int32        `json:"diskSizeMB"`
	CreatedAt  time.Time    `json:"createdAt"`
	UpdatedAt  time.Time    `json:"updatedAt"`
	SpawnCount int64        `json:"spawnCount"`
	Builds     []savedBuild `json:"builds"`
	Tags       []savedTag   `json:"tags"`
}

type savedBuild struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	CreatedAt  time.Time       `json:"createdAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`
	FinishedAt *time.Time      `json:"finishedAt,omitempty"`
	CPUCount   int32           `json:"cpuCount"`
	MemoryMB   int32           `json:"memoryMB"`
	FilesDir   string          `json:"filesDir,omitempty"`
	Layers     []string        `json:"layers,omitempty"`
	Base       string          `json:"base,omitempty"`
	Config     BuildConfig     `json:"config"`
	FromImage  string          `json:"fromImage,omitempty"`
	Logs       []BuildLogEntry `json:"logs"`
	Reason     *BuildReason    `json:"reason,omitempty"`
	// SourceSandbox is the sandbox a snapshot build was taken from.
	SourceSandbox string `json:"sourceSandbox,omitempty"`
}

type savedTag struct {
	Tag     string    `json:"tag"`
	BuildID string    `json:"buildID"`
	At      time.Time `json:"at"`
}

// OpenTemplates keeps the templates in file from now on and loads what a
// previous run saved there, if anything; logf reports a failed save.
func (st *Store) OpenTemplates(file string, logf func(format string, args ...any)) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.templatesFile, st.logf = file, logf
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var saved savedState
	if err := json.Unmarshal(data, &saved); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, in := range saved.Templates {
		t := &template{
			id: in.ID, names: in.Names, public: in.Public, snapshot: in.Snapshot,
			cpuCount: in.CPUCount, memoryMB: in.MemoryMB, diskSizeMB: in.DiskSizeMB,
			createdAt: in.CreatedAt, updatedAt: in.UpdatedAt, spawnCount: in.SpawnCount,
		}
		byID := map[string]*build{}
		for _, b := range in.Builds {
			nb := &build{Build: Build{
				ID: b.ID, Status: b.Status, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt, FinishedAt: b.FinishedAt,
				CPUCount: b.CPUCount, MemoryMB: b.MemoryMB, FilesDir: b.FilesDir, Layers: b.Layers, Base: b.Base,
				Config: b.Config.Clone(), FromImage: b.FromImage, Logs: b.Logs, Reason: b.Reason,
				SourceSandbox: b.SourceSandbox,
			}}
			if nb.Status == BuildBuilding {
				nb.Status, nb.FinishedAt, nb.UpdatedAt = BuildError, &now, now
				nb.Reason = &BuildReason{Message: "the emulator stopped during the build"}
			}
			t.builds = append(t.builds, nb)
			byID[nb.ID] = nb
		}
		for _, a := range in.Tags {
			if b := byID[a.BuildID]; b != nil {
				t.tags = append(t.tags, assignment{tag: a.Tag, build: b, at: a.At})
			}
		}
		if len(t.builds) > 0 {
			st.templates[t.id] = t
		}
	}
	for h, c := range saved.StepCache {
		c.Config = c.Config.Clone()
		st.stepCache[h] = c
	}
	return nil
}

// saveTemplatesLocked writes the team's templates and the step cache
// atomically, when they are kept in a file.
func (st *Store) saveTemplatesLocked() {
	if st.templatesFile == "" {
		return
	}
	saved := savedState{StepCache: map[string]Layer{}}
	for _, t := range st.sortedTemplatesLocked() {
		if t.builtin {
			continue
		}
		out := savedTemplate{
			ID: t.id, Names: t.names, Public: t.public, Snapshot: t.snapshot,
			CPUCount: t.cpuCount, MemoryMB: t.memoryMB, DiskSizeMB: t.diskSizeMB,
			CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, SpawnCount: t.spawnCount,
		}
		for _, b := range t.builds {
			out.Builds = append(out.Builds, savedBuild{
				ID: b.ID, Status: b.Status, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt, FinishedAt: b.FinishedAt,
				CPUCount: b.CPUCount, MemoryMB: b.MemoryMB, FilesDir: b.FilesDir, Layers: b.Layers, Base: b.Base,
				Config: b.Config, FromImage: b.FromImage, Logs: b.Logs, Reason: b.Reason,
				SourceSandbox: b.SourceSandbox,
			})
		}
		for _, a := range t.tags {
			out.Tags = append(out.Tags, savedTag{Tag: a.tag, BuildID: a.build.ID, At: a.at})
		}
		saved.Templates = append(saved.Templates, out)
	}
	for h, c := range st.stepCache {
		saved.StepCache[h] = c
	}
	data, err := json.Marshal(saved)
	if err == nil {
		err = writeAtomic(st.templatesFile, data)
	}
	if err != nil && st.logf != nil {
		st.logf("emulator: save template state: %v", err)
	}
}

// writeAtomic writes data to a temporary file beside dst, then renames it.
func writeAtomic(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".part-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), dst)
}
