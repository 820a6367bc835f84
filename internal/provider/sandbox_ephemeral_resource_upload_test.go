package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// A per-pull-request job: a folder, a text and a script go into an ephemeral sandbox when it
// opens, and a command run in the same apply uses them; each run's sandbox is killed.
func TestAccEphemeralSandbox_uploadsBeforeUse(t *testing.T) {
	emu := newTestEmulator(t)
	rec := newE2BRecorder(t, emu)
	src := t.TempDir()
	harness.WriteTree(t, src, map[string]string{
		"app/main.sh*":     "#!/bin/sh\necho \"app says $(cat \"$(dirname \"$0\")/lib/word.txt\")\"\n",
		"app/lib/word.txt": "hello", "app/node_modules/big.js": "never sent", "check.sh*": "#!/bin/sh\necho checked\n",
	})
	app := filepath.Join(src, "app")
	digest := localDigest(t, e2b.LocalFolder{Dir: app, Exclude: []string{"node_modules"}})
	vars := config.Variables{"app": config.StringVariable(app), "check": config.StringVariable(filepath.Join(src, "check.sh")),
		"digest": config.StringVariable(digest)}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return checkAllKilled(emu, rec) },
		Steps: []resource.TestStep{{
			Config:          testAccProviderBlockVia(emu, rec) + testAccTestdata(t),
			ConfigVariables: vars,
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
	harness.WriteTree(t, filepath.Dir(file), map[string]string{"one.txt": "1"})
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

// uploadBlocks is the upload attribute's value for a protocol request: one block per element of
// blocks (attribute name -> string), the other attributes null.
func (p *protoProvider) uploadBlocks(blocks ...map[string]string) tftypes.Value {
	p.t.Helper()
	list := p.schema.EphemeralResourceSchemas["e2b_sandbox"].ValueType().(tftypes.Object).AttributeTypes["upload"].(tftypes.List)
	obj := list.ElementType.(tftypes.Object)
	var elems []tftypes.Value
	for _, b := range blocks {
		vals := map[string]tftypes.Value{}
		for name, at := range obj.AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		for name, v := range b {
			vals[name] = tftypes.NewValue(tftypes.String, v)
		}
		elems = append(elems, tftypes.NewValue(obj, vals))
	}
	return tftypes.NewValue(list, elems)
}

// A sandbox whose uploads are still running when the CLI stops the provider is killed with the
// other leftovers: it is tracked from its creation, not from the end of the open.
func TestEphemeralSandboxKilledWhenStoppedDuringUpload(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	srv.SetFaults(emulator.Faults{Latency: 3 * time.Second, Routes: []string{"envd POST /files"}})
	done := make(chan *tfprotov6.OpenEphemeralResourceResponse, 1)
	go func() {
		resp, _ := p.openEphemeral("e2b_sandbox", map[string]tftypes.Value{
			"upload": p.uploadBlocks(map[string]string{"content": "slow", "destination": "/home/user/slow.txt"}),
		})
		done <- resp
	}()
	deadline := time.Now().Add(time.Minute)
	for srv.Counters().Requests["envd POST /files"] == 0 { // The upload has started (and waits).
		if time.Now().After(deadline) {
			t.Fatal("the upload never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := KillLeftoverEphemeralSandboxes(context.Background()); n != 1 {
		t.Fatalf("killed %d sandboxes while the upload ran, want 1", n)
	}
	resp := <-done
	if len(resp.Diagnostics) == 0 {
		t.Fatal("the open succeeded although its sandbox was killed during the upload")
	}
	if ids := srv.SandboxIDs(); len(ids) != 0 {
		t.Fatalf("sandboxes left: %v", ids)
	}
}
