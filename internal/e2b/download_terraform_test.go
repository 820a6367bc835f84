package e2b

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A sandbox that plants Terraform's files in what is downloaded never gets them written, at
// any depth: configuration that the next run would execute on the runner, state, the lock
// file, plans, and providers under .terraform or terraform.d. Only the ordinary file comes down.
func TestDownloadNeverWritesTerraformFiles(t *testing.T) {
	e := newKeptEnv(t)
	envd, err := e.c.SandboxEnvd(e.ctx, e.sandbox(), "")
	if err != nil {
		t.Fatal(err)
	}
	planted := []string{
		"zz_sandbox.tf", "main.tf.json", "x.tofu", "prod.tfvars", "terraform.tfstate", "terraform.tfstate.backup",
		".terraform.lock.hcl", "saved.tfplan", ".terraformrc", "sub/deep/module.tf", "sub/secrets.auto.tfvars.json",
		".terraform/providers/registry.terraform.io/e2b/e2b/9.9.9/linux_amd64/terraform-provider-e2b",
		"terraform.d/plugins/example.com/x/y/1.0.0/linux_amd64/terraform-provider-y", "tests/a.tftest.hcl",
	}
	script := "set -e\nmkdir -p ~/work && cd ~/work && echo ok > report.txt\n"
	for _, p := range planted {
		script += "mkdir -p \"$(dirname " + p + ")\" && echo 'resource \"terraform_data\" \"x\" {}' > " + p + "\n"
	}
	if res, err := envd.Exec(e.ctx, ExecRequest{Command: script}); err != nil || res.ExitCode != 0 {
		t.Fatalf("prepare: %v %+v", err, res)
	}
	dest := filepath.Join(t.TempDir(), "out")
	res, err := envd.Download(e.ctx, "/home/user/work", dest, DownloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	_ = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			written = append(written, filepath.ToSlash(rel))
		}
		return nil
	})
	if !slices.Equal(written, []string{"report.txt"}) {
		t.Fatalf("the download wrote %v, want only report.txt", written)
	}
	for _, p := range []string{"zz_sandbox.tf", ".terraform", "terraform.d", "sub/deep/module.tf", ".terraform.lock.hcl"} {
		if !slices.Contains(res.SkippedTerraform, p) {
			t.Errorf("%s is not reported as skipped: %v", p, res.SkippedTerraform)
		}
	}
	for _, p := range []string{"/home/user/work/zz_sandbox.tf", "/home/user/work/.terraform.lock.hcl", "/home/user/work/saved.tfplan"} {
		d2 := t.TempDir()
		if _, err := envd.Download(e.ctx, p, d2, DownloadOptions{}); err == nil || !strings.Contains(err.Error(), "never writes") {
			t.Errorf("download of %s: %v", p, err)
		}
		if entries, _ := os.ReadDir(d2); len(entries) != 0 {
			t.Errorf("download of %s wrote %v", p, entries)
		}
	}
}

// A destination that is the root module's folder, holds it, or lies in one of its working
// folders is refused before anything is asked of the sandbox; a folder of its own in it is fine.
func TestDownloadRefusesTheRootModuleFolder(t *testing.T) {
	base := t.TempDir()
	module := filepath.Join(base, "infra")
	if err := os.MkdirAll(filepath.Join(module, ".terraform"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "alias")
	if err := os.Symlink(module, link); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{module, module + "/", base, link, filepath.Join(module, ".terraform/providers"),
		filepath.Join(module, "terraform.d/plugins"), filepath.Join(link, "..")} {
		err := checkDownloadDestination(dest, module)
		if err == nil {
			t.Errorf("destination %s was accepted", dest)
		}
	}
	other := filepath.Join(base, "other-module")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "main.tf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkDownloadDestination(other, ""); err == nil || !strings.Contains(err.Error(), "module's folder") {
		t.Errorf("a folder holding main.tf: %v", err)
	}
	for _, dest := range []string{filepath.Join(module, "downloads"), filepath.Join(base, "elsewhere"), filepath.Join(link, "reports/x")} {
		if err := checkDownloadDestination(dest, module); err != nil {
			t.Errorf("destination %s: %v", dest, err)
		}
	}
}

// A download whose path names a file the sandbox swapped for a folder (holding a .tf file)
// fails when kind says file: nothing is written, and the destination being the root module is
// refused on its own.
func TestDownloadOfAFileThatBecameAFolder(t *testing.T) {
	e := newKeptEnv(t)
	envd, err := e.c.SandboxEnvd(e.ctx, e.sandbox(), "")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := envd.Exec(e.ctx, ExecRequest{Command: "mkdir -p ~/out.txt && echo evil > ~/out.txt/zz_sandbox.tf && echo x > ~/out.txt/note"}); err != nil || res.ExitCode != 0 {
		t.Fatalf("prepare: %v %+v", err, res)
	}
	module := t.TempDir()
	_, err = envd.Download(e.ctx, "/home/user/out.txt", module, DownloadOptions{Protect: module, IfExists: DownloadIfExistsMerge})
	if err == nil || !strings.Contains(err.Error(), "folder Terraform runs in") {
		t.Fatalf("download into the root module: %v", err)
	}
	dest := filepath.Join(module, "downloads")
	_, err = envd.Download(e.ctx, "/home/user/out.txt", dest, DownloadOptions{Protect: module, Kind: FileTypeFile})
	if err == nil || !strings.Contains(err.Error(), "expects a file") {
		t.Fatalf("a folder where a file was expected: %v", err)
	}
	if entries, _ := os.ReadDir(module); len(entries) != 0 {
		t.Fatalf("refused downloads wrote %v", entries)
	}
}
