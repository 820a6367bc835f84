package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// e2b_sandbox_file never manages a directory: importing one is refused and leaves it whole.
func TestAccSandboxFile_importOfADirectoryIsRefused(t *testing.T) {
	srv := testAccBackend(t)
	cfg := testAccRequiredProviders() + noteFileConfig(srv, "data/keep.txt", "keep me")
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: captureAttr(sbAddr, "id", &sandboxID)},
		{
			Config:       cfg,
			ResourceName: noteAddr,
			ImportState:  true,
			ImportStateIdFunc: func(*terraform.State) (string, error) {
				return sandboxID + ":/home/user/data", nil
			},
			ExpectError: regexp.MustCompile(`(?s)Cannot import /home/user/data.*is a\s+directory;\s+e2b_sandbox_file\s+manages\s+regular\s+files\s+only`),
		},
		{
			// The directory and the file in it are still there.
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            checkRemoteFile(t, srv, &sandboxID, "/home/user/data/keep.txt", "keep me"),
		},
	}))
}

// A managed file that a workload replaced with a directory fails the plan instead of planning a
// rewrite, and nothing in the directory is touched.
func TestAccSandboxFile_pathThatBecameADirectoryFailsThePlan(t *testing.T) {
	srv := testAccBackend(t)
	cfg := noteFileConfig(srv, "victim.txt", "mine")
	var sandboxID string
	resource.ParallelTest(t, testAccCase(t, nil, []resource.TestStep{
		{Config: cfg, Check: captureAttr(sbAddr, "id", &sandboxID)},
		{
			PreConfig:   sandboxShell(t, srv, &sandboxID, "rm ~/victim.txt && mkdir ~/victim.txt && echo theirs > ~/victim.txt/inner"),
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)/home/user/victim.txt is no longer a regular file.*is a\s+directory\s+now`),
		},
		{
			// Untouched; once the workload moves it away, the file is written again.
			PreConfig: func() {
				if err := checkRemoteFile(t, srv, &sandboxID, "/home/user/victim.txt/inner", "theirs\n")(nil); err != nil {
					t.Fatalf("the directory was touched: %v", err)
				}
				sandboxShell(t, srv, &sandboxID, "mv ~/victim.txt ~/moved")()
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(noteAddr, plancheck.ResourceActionCreate),
			}},
			Check: resource.ComposeTestCheckFunc(
				checkRemoteFile(t, srv, &sandboxID, "/home/user/victim.txt", "mine"),
				checkRemoteFile(t, srv, &sandboxID, "/home/user/moved/inner", "theirs\n"),
			),
		},
	}))
}

// Delete removes a regular file only: a directory where the file was stays with all it holds,
// and the resource leaves state with a warning.
func TestSandboxFileDelete_neverRemovesADirectory(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	ctx := context.Background()
	if _, err := envd.WriteFile(ctx, "/home/user/was-a-file/inner.txt", strings.NewReader("theirs"), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	typ := p.schema.ResourceSchemas["e2b_sandbox_file"].ValueType()
	prior := p.dynamicValue(typ, map[string]tftypes.Value{
		"id":            str(id + ":/home/user/was-a-file"),
		"sandbox_id":    str(id),
		"path":          str("was-a-file"),
		"absolute_path": str("/home/user/was-a-file"),
		"content":       str("mine"),
	})
	planned, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "e2b_sandbox_file", PriorState: prior, PlannedState: &planned,
		Config: &planned,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.noErrors("ApplyResourceChange (delete)", resp.Diagnostics)
	var warned bool
	for _, d := range resp.Diagnostics {
		warned = warned || (d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == "File not deleted" &&
			strings.Contains(d.Detail, "is a directory"))
	}
	if !warned {
		t.Errorf("want a warning that the directory was left in place, got %+v", resp.Diagnostics)
	}
	if got, err := readRemote(envd, "/home/user/was-a-file/inner.txt"); err != nil || got != "theirs" {
		t.Fatalf("the directory lost its content: %q, %v", got, err)
	}
}
