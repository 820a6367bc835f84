package volumeapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// A sandbox that mounts a volume can plant a symbolic link to a host directory in it; the
// volume-content API resolves every path beneath the volume's directory, so nothing it writes,
// lists, reads, changes or deletes lies outside the volume. Links inside the volume still work.
func TestVolumeContentStaysInsideTheVolume(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	v := c.CreateVolume("escape-test")
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "host-secret.txt"), []byte("host-only"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := c.Create(map[string]any{"volumeMounts": []map[string]string{{"name": "escape-test", "path": "/mnt/v"}}})
	if res := c.StartProcess(sb, "ln -s "+host+" esc && mkdir sub && ln -s sub inside", map[string]any{"cwd": "/mnt/v"}, nil).Collect(); res.End["exitCode"] != nil {
		t.Fatalf("plant links: %v %q", res.End, res.Stderr)
	}
	refused := func(what string, st int, body []byte) {
		t.Helper()
		if st != http.StatusBadRequest || !strings.Contains(string(body), "out of the volume") {
			t.Errorf("%s: %d %s, want a refusal", what, st, body)
		}
	}
	st, body := c.VolumeContent(v, "PUT", "file", "/esc/x", "pwned")
	refused("upload through the link", st, body)
	st, body = c.VolumeContent(v, "PUT", "file", "/esc/deep/x?force=true", "pwned")
	refused("forced upload through the link", st, body)
	st, body = c.VolumeContent(v, "POST", "dir", "/esc/made", "")
	refused("mkdir through the link", st, body)
	st, body = c.VolumeContent(v, "GET", "dir", "/esc", "")
	refused("list through the link", st, body)
	st, body = c.VolumeContent(v, "GET", "file", "/esc/host-secret.txt", "")
	refused("download through the link", st, body)
	st, body = c.VolumeContent(v, "DELETE", "path", "/esc/host-secret.txt", "")
	refused("delete through the link", st, body)
	for _, name := range []string{"x", "deep", "made"} {
		if _, err := os.Lstat(filepath.Join(host, name)); err == nil {
			t.Errorf("the volume-content API created %s on the host", name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(host, "host-secret.txt")); err != nil || string(b) != "host-only" {
		t.Errorf("the host file: %q, %v", b, err)
	}
	// The link itself is the volume's: stat names it, a deep list does not descend into it.
	st, body = c.VolumeContent(v, "GET", "path", "/esc", "")
	if st != http.StatusOK || !strings.Contains(string(body), `"type":"symlink"`) {
		t.Errorf("stat of the link: %d %s", st, body)
	}
	st, body = c.VolumeContent(v, "GET", "dir", "/?depth=5", "")
	if st != http.StatusOK || strings.Contains(string(body), "host-secret") {
		t.Errorf("deep list: %d %s", st, body)
	}
	// A link that stays inside the volume is followed.
	if st, body := c.VolumeContent(v, "PUT", "file", "/inside/y", "kept"); st != http.StatusCreated {
		t.Fatalf("upload through an inner link: %d %s", st, body)
	}
	if st, body := c.VolumeContent(v, "GET", "file", "/sub/y", ""); st != http.StatusOK || string(body) != "kept" {
		t.Errorf("read back through the real directory: %d %q", st, body)
	}
}
