package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A per-pull-request job: a folder, a text and a script go into an ephemeral sandbox when it
// opens, and a command run in the same apply uses them; each run's sandbox is killed.
func TestAccEphemeralSandbox_uploadsBeforeUse(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	src := t.TempDir()
	writeLocal(t, src, map[string]string{
		"app/main.sh*": "#!/bin/sh\necho \"app says $(cat \"$(dirname \"$0\")/lib/word.txt\")\"\n",
		"app/lib/word.txt": "hello", "app/node_modules/big.js": "never sent", "check.sh*": "#!/bin/sh\necho checked\n",
	})
	app := filepath.Join(src, "app")
	digest := localDigest(t, e2b.LocalFolder{Dir: app, Exclude: []string{"node_modules"}})
	cfg := testAccProviderBlockVia(emu, rec) + fmt.Sprintf(`
ephemeral "e2b_sandbox" "ci" {
  upload {
    source      = %q
    destination = "/home/user/app"
    exclude     = ["node_modules"]
  }
  upload {
    content     = "STAGE=ci\n"
    destination = "/home/user/app/.env"
  }
  upload {
    source      = %q
    destination = "/home/user/bin/check"
  }
}

resource "e2b_sandbox_command" "test" {
  sandbox_id_wo = ephemeral.e2b_sandbox.ci.id
  command       = <<-EOT
    cd ~/app && ./main.sh && cat .env && ~/bin/check
    test ! -e node_modules || echo "node_modules was uploaded"
    test "$DIGEST" = %q || echo "digest $DIGEST"
  EOT
  env_wo = { DIGEST = ephemeral.e2b_sandbox.ci.upload[0].sha256 }
}
`, app, filepath.Join(src, "check.sh"), digest)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("e2b_sandbox_command.test", tfjsonpath.New("stdout"),
					knownvalue.StringExact("app says hello\nSTAGE=ci\nchecked\n")),
			},
			Check: func(*terraform.State) error { return checkAllKilled(emu, rec) },
		}},
	})
}

// An upload that fails kills the sandbox and fails the run, naming the upload; patterns for a
// single file and a missing source are refused before any sandbox is made.
func TestAccEphemeralSandbox_badUploads(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	file := filepath.Join(t.TempDir(), "one.txt")
	writeLocal(t, filepath.Dir(file), map[string]string{"one.txt": "1"})
	use := `
resource "e2b_sandbox_command" "never" {
  sandbox_id_wo = ephemeral.e2b_sandbox.bad.id
  command       = "true"
}
`
	step := func(upload, want string) resource.TestStep {
		return resource.TestStep{
			Config:      testAccProviderBlockVia(emu, rec) + "ephemeral \"e2b_sandbox\" \"bad\" {\n" + upload + "\n}\n" + use,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps: []resource.TestStep{
			step(`upload {
  source      = "does/not/exist"
  destination = "/home/user/x"
}`, `(?s)upload\[0\]\.source.*does/not/exist\s+does\s+not\s+exist`),
			step(fmt.Sprintf(`upload {
  source      = %q
  destination = "/home/user/x"
  include     = ["*.txt"]
}`, file), `(?s)Patterns need a folder`),
			step(`upload {
  destination = "/home/user/x"
}`, `(?s)Invalid Attribute Combination|Missing Attribute Configuration`),
			step(`upload {
  content     = "x"
  destination = "home/user/x"
}`, `(?s)destination must be an absolute path`),
			{
				PreConfig: func() {
					if n := len(rec.created()); n != 0 {
						t.Fatalf("bad uploads created %d sandboxes before being refused", n)
					}
				},
				Config: testAccProviderBlockVia(emu, rec) + `
ephemeral "e2b_sandbox" "bad" {
  upload {
    content     = "a directory is in the way"
    destination = "/home/user"
  }
}
` + use,
				ExpectError: regexp.MustCompile(`(?s)Could not upload to /home/user.*content\s+= "a directory is in the way".*is a\s+directory`),
			},
			{
				Config: testAccProviderBlockVia(emu, rec),
				Check: func(*terraform.State) error {
					if len(rec.created()) == 0 {
						return fmt.Errorf("the failing upload never had a sandbox")
					}
					return checkAllKilled(emu, rec)
				},
			},
		},
	})
}
