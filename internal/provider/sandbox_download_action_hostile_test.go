package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A hostile sandbox against the download action, driven through the protocol server (every
// CLI): a configuration file it plants in a folder is never written and is listed with its
// control characters escaped; a folder where kind says file fails; a module's folder is
// refused; a non-empty destination fails unless if_exists says merge.
func TestSandboxDownloadActionHostileProtocol(t *testing.T) {
	p, _, envd, id := newProtoSandbox(t)
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: `set -e
mkdir -p ~/out/sub ~/swapped.txt
echo ok > ~/out/junit.xml
echo 'resource "terraform_data" "x" {}' > ~/out/sub/zz_sandbox.tf
echo x > "$(printf '/home/user/out/\033]0;pwned\007\033[2J.tf')"
echo x > ~/swapped.txt/zz_sandbox.tf`})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	module := t.TempDir()
	if err := os.WriteFile(filepath.Join(module, "main.tf"), []byte("# the configuration\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(module, "reports")
	progress, diags := p.invokeAction("e2b_sandbox_download", map[string]tftypes.Value{
		"sandbox_id": str(id), "path": str("/home/user/out"), "destination": str(dest),
	})
	p.noErrors("download", diags)
	last := progress[len(progress)-1]
	if _, err := os.Stat(filepath.Join(dest, "sub/zz_sandbox.tf")); err == nil {
		t.Fatal("the planted .tf file was written")
	}
	if !strings.Contains(last, "never written): ") || !strings.Contains(last, `sub/zz_sandbox.tf`) ||
		!strings.Contains(last, `\x1b]0;pwned\x07\x1b[2J.tf`) || strings.ContainsAny(last, "\x1b\x07") {
		t.Fatalf("download reported %q", last)
	}
	for name, c := range map[string]struct {
		vals map[string]tftypes.Value
		want string
	}{
		"into the module": {map[string]tftypes.Value{"path": str("/home/user/out"), "destination": str(module)}, "module's folder"},
		"file became a folder": {map[string]tftypes.Value{"path": str("/home/user/swapped.txt"), "destination": str(filepath.Join(t.TempDir(), "x")),
			"kind": str("file")}, "expects a file"},
		"not empty": {map[string]tftypes.Value{"path": str("/home/user/out"), "destination": str(dest)}, "not empty"},
	} {
		c.vals["sandbox_id"] = str(id)
		_, diags := p.invokeAction("e2b_sandbox_download", c.vals)
		if d := errorDiag(diags); d == nil || !strings.Contains(d.Detail, c.want) {
			t.Errorf("%s: %+v", name, d)
		}
	}
	_, diags = p.invokeAction("e2b_sandbox_download", map[string]tftypes.Value{
		"sandbox_id": str(id), "path": str("/home/user/out"), "destination": str(dest), "if_exists": str("merge"),
	})
	p.noErrors("download with merge", diags)
}

// The attack as a user meets it, on the real CLI: a download of one file into path.root, where
// the sandbox swapped the file for a folder holding a .tf file with a local-exec. The action
// fails and the configuration gains no file.
func TestAccSandboxDownloadAction_rootModuleRefused_terraform1_14(t *testing.T) {
	srv := testAccBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{{
			Config:      testAccProviderBlock(srv) + testAccTestdata(t, "main.tf"),
			ExpectError: regexp.MustCompile(`(?s)(folder\s+Terraform\s+runs\s+in|module.s\s+folder)`),
		}},
	})
}
