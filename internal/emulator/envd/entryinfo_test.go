package envd_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
)

func target(e emulatortest.EntryInfo) string {
	if e.SymlinkTarget == nil {
		return "<nil>"
	}
	return *e.SymlinkTarget
}

func TestStatOfSymlinkReportsItsAbsoluteTarget(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.Upload(sb, "links/t.txt", strings.NewReader("Hello"), map[string]string{"X-Metadata-Kind": "target"})
	// Links as a command makes them: relative, absolute (a sandbox path, so
	// the same with or without mount namespaces), a chain, a dangling one.
	c.MustRun(sb, "cd ~/links && ln -s t.txt rel && ln -s /home/user/links abs-dir && ln -s rel chain && ln -s missing dangling && ln -s loop loop")

	rel := c.Stat(sb, "links/rel")
	if rel.Type != "FILE_TYPE_FILE" || target(rel) != "/home/user/links/t.txt" || rel.Path != "/home/user/links/rel" || rel.Name != "rel" {
		t.Fatalf("relative link: %+v (target %s)", rel, target(rel))
	}
	// envd: the target's type, mode and metadata; the link's own size and permissions.
	if rel.Mode != 0o644 || !strings.HasPrefix(rel.Permissions, "L") || rel.Size != "5" || rel.Metadata["kind"] != "target" {
		t.Fatalf("relative link details: %+v", rel)
	}
	if dir := c.Stat(sb, "/home/user/links/abs-dir"); dir.Type != "FILE_TYPE_DIRECTORY" || target(dir) != "/home/user/links" {
		t.Fatalf("absolute link to a directory: %+v (target %s)", dir, target(dir))
	}
	if chain := c.Stat(sb, "links/chain"); chain.Type != "FILE_TYPE_FILE" || target(chain) != "/home/user/links/t.txt" {
		t.Fatalf("link to a link: %+v (target %s)", chain, target(chain))
	}
	for _, name := range []string{"dangling", "loop"} {
		e := c.Stat(sb, "links/"+name)
		if e.Type != "" || target(e) != "/home/user/links/"+name { // protojson leaves out FILE_TYPE_UNSPECIFIED
			t.Fatalf("%s link: %+v (target %s); envd reports the link's own path and no type", name, e, target(e))
		}
	}
	listed := c.ListDir(sb, "links")
	if e := listed["rel"]; e.Type != "FILE_TYPE_FILE" || target(e) != "/home/user/links/t.txt" {
		t.Fatalf("listed link: %+v (target %s)", e, target(e))
	}
	if e := listed["t.txt"]; e.SymlinkTarget != nil {
		t.Fatalf("a regular file has a symlink target: %s", target(e))
	}
}

func TestFileMetadataLivesInExtendedAttributes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	st, data := c.Upload(sb, "meta/a.txt", strings.NewReader("a"), nil)
	emulatortest.WantStatus(t, "upload", st, data, http.StatusOK)
	host := c.SandboxHostPath(sb, "/home/user/meta/a.txt")
	// What setfattr -n user.e2b.author -v mish does inside the sandbox.
	if err := hostfs.SetXattr(host, "user.e2b.author", []byte("mish"), false); hostfs.XattrUnsupported(err) {
		t.Skipf("the test's temporary directory has no extended attributes (%v): envd keeps no metadata there either", err)
	} else if err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]string{"user.other": "not ours", "user.e2b.bad": "\xff\xfe"} {
		if err := hostfs.SetXattr(host, name, []byte(value), false); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Stat(sb, "meta/a.txt").Metadata; len(got) != 1 || got["author"] != "mish" {
		t.Fatalf("stat metadata %v, want only author=mish (user.other is not ours, invalid UTF-8 is skipped)", got)
	}
	if got := c.ListDir(sb, "meta")["a.txt"].Metadata; len(got) != 1 || got["author"] != "mish" {
		t.Fatalf("listed metadata %v", got)
	}

	// An upload replaces the whole set and answers with what it stored.
	st, data = c.Upload(sb, "meta/a.txt", strings.NewReader("b"), map[string]string{"X-Metadata-Stage": "two"})
	if st != 200 || !strings.Contains(string(data), `"metadata":{"stage":"two"}`) {
		t.Fatalf("upload with metadata: %d %s", st, data)
	}
	if got := c.Stat(sb, "meta/a.txt").Metadata; len(got) != 1 || got["stage"] != "two" {
		t.Fatalf("metadata after a second upload %v", got)
	}
	if v, ok, _ := hostfs.GetXattr(host, "user.e2b.stage", false); !ok || string(v) != "two" {
		t.Fatalf("xattr user.e2b.stage = %q, %v", v, ok)
	}
	if v, ok, _ := hostfs.GetXattr(host, "user.other", false); !ok || string(v) != "not ours" {
		t.Fatalf("an upload removed a foreign attribute: %q %v", v, ok)
	}
	// Rename keeps it (it is on the file); an upload without metadata clears it.
	st, data = c.RPC(sb, "filesystem.Filesystem/Move", map[string]any{"source": "meta/a.txt", "destination": "meta/b.txt"})
	if st != 200 || !strings.Contains(string(data), `"metadata":{"stage":"two"}`) {
		t.Fatalf("move: %d %s", st, data)
	}
	st, data = c.Upload(sb, "meta/b.txt", strings.NewReader("c"), nil)
	if st != 200 || strings.Contains(string(data), "metadata") {
		t.Fatalf("upload without metadata: %d %s", st, data)
	}
	if got := c.Stat(sb, "meta/b.txt").Metadata; got != nil {
		t.Fatalf("stale metadata %v after an upload without any", got)
	}
	// envd's limits.
	st, data = c.Upload(sb, "meta/c.txt", strings.NewReader("c"), map[string]string{"X-Metadata-" + strings.Repeat("k", 250): "v"})
	if st != 400 || !strings.Contains(string(data), "exceeds 246 bytes") {
		t.Fatalf("over-long key: %d %s", st, data)
	}
}
