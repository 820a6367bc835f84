package controlplane_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func testVolumesShared(t *testing.T, isolation string) {
	dataDir := t.TempDir()
	if isolation == "none" {
		// As root, the shared layout runs user's commands as uid 1000, which must pass through
		// to the data directory (the test's own temporary folder is closed to other users).
		if err := os.Chmod(filepath.Dir(dataDir), 0o711); err != nil {
			t.Fatal(err)
		}
	}
	c := emulatortest.Start(t, emulator.Options{DataDir: dataDir, Isolation: isolation})
	v := c.CreateVolume("shared-data")
	if v.Token == "" || !strings.HasPrefix(v.VolumeID, "vol") {
		t.Fatalf("create volume answered %+v", v)
	}
	st, data, _ := c.API("POST", "/volumes", map[string]any{"name": "shared-data"})
	emulatortest.WantStatus(t, "duplicate name", st, data, http.StatusBadRequest)
	st, data, _ = c.API("POST", "/volumes", map[string]any{"name": "bad name"})
	emulatortest.WantStatus(t, "bad name", st, data, http.StatusBadRequest)

	a := c.Create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/mnt/shared"}}})
	b := c.Create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/home/user/data"}}})
	if got := c.Detail(a.SandboxID).VolumeMounts; len(got) != 1 || got[0].Path != "/mnt/shared" || got[0].Name != "shared-data" {
		t.Fatalf("detail volumeMounts = %+v", got)
	}
	// A command in one sandbox writes; the files API and a command in the other read.
	// Without namespaces only the cwd (not a literal path) reaches /mnt/shared.
	if res := c.StartProcess(a, "echo from-a > note.txt", map[string]any{"cwd": "/mnt/shared"}, nil).Collect(); res.End["exitCode"] != nil {
		t.Fatalf("write in a: %v %q", res.End, res.Stderr)
	}
	if st, body := c.Download(b, "/home/user/data/note.txt"); st != http.StatusOK || string(body) != "from-a\n" {
		t.Fatalf("files API in b: %d %q", st, body)
	}
	if out := c.MustRun(b, "cat ~/data/note.txt"); out != "from-a\n" {
		t.Fatalf("command in b read %q", out)
	}
	// The files API writes through to the volume as well.
	if st, body := c.Upload(b, "/home/user/data/up.txt", strings.NewReader("via-files"), nil); st != http.StatusOK {
		t.Fatalf("upload: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "GET", "file", "/up.txt", ""); st != http.StatusOK || string(body) != "via-files" {
		t.Fatalf("volume content download: %d %q", st, body)
	}

	st, data, _ = c.API("DELETE", "/volumes/"+v.VolumeID, nil)
	emulatortest.WantStatus(t, "delete while mounted", st, data, http.StatusConflict)
	if !strings.Contains(string(data), a.SandboxID) {
		t.Fatalf("refusal does not name the sandboxes: %s", data)
	}
	for _, sb := range []emulatortest.Sandbox{a, b} {
		st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	}

	// The volume survives its sandboxes and a restart with the same data dir.
	if err := c.Srv.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := emulatortest.Start(t, emulator.Options{DataDir: dataDir, Isolation: isolation})
	st, data, _ = c2.API("GET", "/volumes/"+v.VolumeID, nil)
	emulatortest.WantStatus(t, "get after restart", st, data, http.StatusOK)
	if got := emulatortest.Decode[controlplane.VolumeAndTokenJSON](t, data); got.Token != v.Token || got.Name != "shared-data" {
		t.Fatalf("after restart: %+v", got)
	}
	d := c2.Create(map[string]any{"volumeMounts": []map[string]string{{"name": "shared-data", "path": "/opt/vol"}}})
	if isolation == "auto" {
		if out := c2.MustRun(d, "cat /opt/vol/note.txt /opt/vol/up.txt"); out != "from-a\nvia-files" {
			t.Fatalf("after restart a new sandbox reads %q", out)
		}
	}
	if st, body := c2.Download(d, "/opt/vol/note.txt"); st != http.StatusOK || string(body) != "from-a\n" {
		t.Fatalf("files API after restart: %d %q", st, body)
	}
	// A snapshot does not carry the volume's files.
	st, data, _ = c2.API("POST", "/sandboxes/"+d.SandboxID+"/snapshots", map[string]any{})
	emulatortest.WantStatus(t, "snapshot", st, data, http.StatusCreated)
	snap := emulatortest.Decode[struct {
		SnapshotID string `json:"snapshotID"`
	}](t, data)
	e := c2.Create(map[string]any{"templateID": snap.SnapshotID})
	if st, _ := c2.Download(e, "/opt/vol/note.txt"); st != http.StatusNotFound {
		t.Fatalf("a sandbox from the snapshot sees the volume's file: %d", st)
	}
	st, data, _ = c2.API("DELETE", "/sandboxes/"+d.SandboxID, nil)
	emulatortest.WantStatus(t, "kill d", st, data, http.StatusNoContent)
	st, data, _ = c2.API("DELETE", "/volumes/"+v.VolumeID, nil)
	emulatortest.WantStatus(t, "delete", st, data, http.StatusNoContent)
	if _, err := os.Stat(c2.Srv.Store().VolumeDir(v.VolumeID)); !os.IsNotExist(err) {
		t.Fatalf("volume directory left behind: %v", err)
	}
}

func TestVolumesSharedAcrossSandboxesAndRestarts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("bind mounts into sandbox namespaces need root; TestVolumesFallbackWithoutNamespaces covers the rest")
	}
	testVolumesShared(t, "auto")
}

func TestVolumesFallbackWithoutNamespaces(t *testing.T) {
	testVolumesShared(t, "none")
}

func TestVolumeMountValidation(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.CreateVolume("v1")
	for _, tc := range []struct {
		mounts []map[string]string
		want   string
	}{
		{[]map[string]string{{"name": "v1", "path": "data"}}, "must be absolute"},
		{[]map[string]string{{"name": "v1", "path": "/"}}, "cannot be mounted at /"},
		{[]map[string]string{{"name": "v1", "path": "/a"}, {"name": "v1", "path": "/a/"}}, "more than once"},
		{[]map[string]string{{"name": "nope", "path": "/a"}}, "'nope' not found"},
	} {
		st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "volumeMounts": tc.mounts})
		if st != http.StatusBadRequest || !strings.Contains(string(data), tc.want) {
			t.Errorf("mounts %v: %d %s, want 400 with %q", tc.mounts, st, data, tc.want)
		}
	}
}

func TestVolumeContentAPI(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	v := c.CreateVolume("content")
	other := c.CreateVolume("other")
	if st, _ := c.VolumeContent(controlplane.VolumeAndTokenJSON{VolumeID: v.VolumeID, Token: other.Token}, "GET", "path", "/", ""); st != http.StatusUnauthorized {
		t.Fatalf("another volume's token: %d, want 401", st)
	}
	if st, body := c.VolumeContent(v, "PUT", "file", "/a/b.txt", "x"); st != http.StatusNotFound {
		t.Fatalf("upload without parent: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "POST", "dir", "/a", ""); st != http.StatusCreated || !strings.Contains(string(body), `"type":"directory"`) {
		t.Fatalf("mkdir: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "PUT", "file", "/a/b.txt", "hello"); st != http.StatusCreated || !strings.Contains(string(body), `"size":5`) {
		t.Fatalf("upload: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "GET", "dir", "/", ""); st != http.StatusOK || strings.Contains(string(body), "b.txt") {
		t.Fatalf("list depth 1: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "GET", "path", "/a/b.txt", ""); st != http.StatusOK || !strings.Contains(string(body), `"path":"/a/b.txt"`) {
		t.Fatalf("stat: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "DELETE", "path", "/a", ""); st != http.StatusNoContent {
		t.Fatalf("remove: %d %s", st, body)
	}
	if st, _ := c.VolumeContent(v, "GET", "file", "/a/b.txt", ""); st != http.StatusNotFound {
		t.Fatalf("download after remove: %d", st)
	}
}
