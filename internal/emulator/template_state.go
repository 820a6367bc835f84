package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// With a DataDir of the caller's, templates, builds, tags and the step cache
// are saved to DataDir/templates/state.json whenever they change, and loaded
// by the next Start: a killed emulator loses no finished build. A build that
// was running is reported failed; its template and tags stay.

const stateFile = "state.json"

type savedState struct {
	Templates []savedTemplate       `json:"templates"`
	StepCache map[string]savedLayer `json:"stepCache"`
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
	ID         string              `json:"id"`
	Status     string              `json:"status"`
	CreatedAt  time.Time           `json:"createdAt"`
	UpdatedAt  time.Time           `json:"updatedAt"`
	FinishedAt *time.Time          `json:"finishedAt,omitempty"`
	CPUCount   int32               `json:"cpuCount"`
	MemoryMB   int32               `json:"memoryMB"`
	FilesDir   string              `json:"filesDir,omitempty"`
	Layers     []string            `json:"layers,omitempty"`
	Base       string              `json:"base,omitempty"`
	Config     savedConfig         `json:"config"`
	FromImage  string              `json:"fromImage,omitempty"`
	Logs       []buildLogEntryJSON `json:"logs"`
	Reason     *buildReasonJSON    `json:"reason,omitempty"`
	// SourceSandbox is the sandbox a snapshot build was taken from.
	SourceSandbox string `json:"sourceSandbox,omitempty"`
}

type savedConfig struct {
	Envs     map[string]string `json:"envs,omitempty"`
	Workdir  string            `json:"workdir,omitempty"`
	User     string            `json:"user,omitempty"`
	StartCmd string            `json:"startCmd,omitempty"`
	ReadyCmd string            `json:"readyCmd,omitempty"`
}

type savedTag struct {
	Tag     string    `json:"tag"`
	BuildID string    `json:"buildID"`
	At      time.Time `json:"at"`
}

type savedLayer struct {
	Dir    string      `json:"dir,omitempty"`
	Layers []string    `json:"layers,omitempty"`
	Base   string      `json:"base,omitempty"`
	Config savedConfig `json:"config"`
}

func saveConfig(c buildConfig) savedConfig {
	return savedConfig{Envs: c.envs, Workdir: c.workdir, User: c.user, StartCmd: c.startCmd, ReadyCmd: c.readyCmd}
}

func (c savedConfig) load() buildConfig {
	return buildConfig{envs: copyMap(c.Envs), workdir: c.Workdir, user: c.User, startCmd: c.StartCmd, readyCmd: c.ReadyCmd}
}

// persistent reports whether the state outlives this emulator.
func (s *Server) persistent() bool { return !s.ownsDataDir }

// saveStateLocked writes the template state atomically. Caller holds s.mu.
func (s *Server) saveStateLocked() {
	if !s.persistent() {
		return
	}
	st := savedState{StepCache: map[string]savedLayer{}}
	for _, t := range s.sortedTemplatesLocked() {
		if !t.teamOwned() {
			continue
		}
		out := savedTemplate{
			ID: t.id, Names: t.names, Public: t.public, Snapshot: t.snapshot,
			CPUCount: t.cpuCount, MemoryMB: t.memoryMB, DiskSizeMB: t.diskSizeMB,
			CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, SpawnCount: t.spawnCount,
		}
		for _, b := range t.builds {
			out.Builds = append(out.Builds, savedBuild{
				ID: b.id, Status: b.status, CreatedAt: b.createdAt, UpdatedAt: b.updatedAt, FinishedAt: b.finishedAt,
				CPUCount: b.cpuCount, MemoryMB: b.memoryMB, FilesDir: b.filesDir, Layers: b.layers, Base: b.base,
				Config: saveConfig(b.config), FromImage: b.fromImage, Logs: b.logs, Reason: b.reason,
				SourceSandbox: b.sourceSandbox,
			})
		}
		for _, a := range t.tags {
			out.Tags = append(out.Tags, savedTag{Tag: a.tag, BuildID: a.build.id, At: a.at})
		}
		st.Templates = append(st.Templates, out)
	}
	for h, c := range s.stepCache {
		st.StepCache[h] = savedLayer{Dir: c.dir, Layers: c.layers, Base: c.base, Config: saveConfig(c.config)}
	}
	data, err := json.Marshal(st)
	if err == nil {
		p := filepath.Join(s.dataDir, "templates", stateFile)
		err = writeHostFile(p+".part-"+newID("", 6), p, bytes.NewReader(data))
	}
	if err != nil {
		s.logf("emulator: save template state: %v", err)
	}
}

// loadState restores a previous run's templates, if any.
func (s *Server) loadState() error {
	if !s.persistent() {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(s.dataDir, "templates", stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var st savedState
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, in := range st.Templates {
		t := &template{
			id: in.ID, names: in.Names, public: in.Public, snapshot: in.Snapshot,
			cpuCount: in.CPUCount, memoryMB: in.MemoryMB, diskSizeMB: in.DiskSizeMB,
			createdAt: in.CreatedAt, updatedAt: in.UpdatedAt, spawnCount: in.SpawnCount,
		}
		byID := map[string]*templateBuild{}
		for _, b := range in.Builds {
			nb := &templateBuild{
				id: b.ID, status: b.Status, createdAt: b.CreatedAt, updatedAt: b.UpdatedAt, finishedAt: b.FinishedAt,
				cpuCount: b.CPUCount, memoryMB: b.MemoryMB, filesDir: b.FilesDir, layers: b.Layers, base: b.Base,
				config: b.Config.load(), fromImage: b.FromImage, logs: b.Logs, reason: b.Reason,
				sourceSandbox: b.SourceSandbox,
			}
			if nb.status == buildBuilding {
				nb.status, nb.finishedAt, nb.updatedAt = buildError, &now, now
				nb.reason = &buildReasonJSON{Message: "the emulator stopped during the build"}
			}
			t.builds = append(t.builds, nb)
			byID[nb.id] = nb
		}
		for _, a := range in.Tags {
			if b := byID[a.BuildID]; b != nil {
				t.tags = append(t.tags, tagAssignment{tag: a.Tag, build: b, at: a.At})
			}
		}
		if len(t.builds) > 0 {
			s.templates[t.id] = t
		}
	}
	for h, c := range st.StepCache {
		s.stepCache[h] = cachedLayer{dir: c.Dir, layers: c.Layers, base: c.Base, config: c.Config.load()}
	}
	return nil
}
