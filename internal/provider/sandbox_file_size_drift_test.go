package provider

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// The sandbox swaps a managed file, and a file of a managed folder, for 1 TiB sparse files (a
// few KB of its disk): the refresh sees by their size that they changed, without reading a
// byte of them (it used to download the whole TiB to hash it), and the apply writes them back.
func TestAccSandboxFileAndFolder_sizeDriftNotRead(t *testing.T) {
	srv := testAccBackend(t)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "app.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := noteFileConfig(srv, "/home/user/notes/hello.txt", "hello\n") + `
resource "e2b_sandbox_folder" "app" {
  sandbox_id  = e2b_sandbox.test.id
  source      = "` + src + `"
  destination = "/home/user/app"
}
`
	var sandboxID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: captureAttr(sbAddr, "id", &sandboxID)},
			{
				PreConfig: sandboxShell(t, srv, &sandboxID, "truncate -s 1T ~/notes/hello.txt ~/app/app.py"),
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkRemoteFile(t, srv, &sandboxID, "/home/user/notes/hello.txt", "hello\n"),
					checkRemoteFile(t, srv, &sandboxID, "/home/user/app/app.py", "print(1)\n"),
				),
			},
			{
				// A second swap after a refresh found them changed: still not read.
				PreConfig: sandboxShell(t, srv, &sandboxID, "truncate -s 1T ~/notes/hello.txt ~/app/app.py"),
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(folderAddr, plancheck.ResourceActionUpdate),
				}},
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// sizeDrift, shared by e2b_sandbox_file and e2b_volume_file: a size other than the stamp's, or a
// stamp already found changed unread, decides without reading; no stamp (an import) or the same
// size needs a hash.
func TestSizeDrift(t *testing.T) {
	written := &remoteFileStamp{Size: 6, SHA256: sha256Hex("hello\n")}
	if _, ok := sizeDrift(nil, 1<<40, time.Time{}); ok {
		t.Error("an import decided without reading")
	}
	if _, ok := sizeDrift(written, 6, time.Time{}); ok {
		t.Error("the same size decided without reading")
	}
	st, ok := sizeDrift(written, 1<<40, time.Time{})
	if !ok || st.SHA256 != "" || st.Size != 1<<40 {
		t.Fatalf("another size: %+v %v", st, ok)
	}
	if _, ok := sizeDrift(&st, 1<<40, time.Time{}); !ok {
		t.Error("a file found changed unread was read on the next refresh")
	}
}
