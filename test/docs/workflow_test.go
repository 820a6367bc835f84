package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// workflow is the part of a GitHub Actions workflow file the docs run reads.
type workflow struct {
	On   any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   string            `yaml:"runs-on"`
		Env      map[string]string `yaml:"env"`
		Defaults struct {
			Run struct {
				WorkingDirectory string `yaml:"working-directory"`
			} `yaml:"run"`
		} `yaml:"defaults"`
		Steps []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

var expressionRE = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// workflowSteps checks a workflow block (rule 8) and returns its run steps as bash lines.
func workflowSteps(t *testing.T, page string, b block, dir, mirrorRC, label string) string {
	t.Helper()
	if b.file == "" || !strings.Contains(b.file, ".github/workflows/") {
		t.Fatalf("%s:%d: a workflow block needs a `file` annotation naming .github/workflows/NAME.yml", page, b.line)
	}
	var wf workflow
	if err := yaml.Unmarshal([]byte(b.text), &wf); err != nil {
		t.Fatalf("%s:%d: the workflow is not valid YAML: %v", page, b.line, err)
	}
	if wf.On == nil || len(wf.Jobs) == 0 {
		t.Fatalf("%s:%d: the workflow has no `on` or no jobs", page, b.line)
	}
	path := filepath.Join(dir, b.file)
	writeFile(t, path, b.text)
	repo := filepath.Dir(filepath.Dir(filepath.Dir(path))) // the folder holding .github
	var out strings.Builder
	names := make([]string, 0, len(wf.Jobs))
	for n := range wf.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		job := wf.Jobs[name]
		if job.RunsOn == "" || len(job.Steps) == 0 {
			t.Fatalf("%s:%d: job %q has no runs-on or no steps", page, b.line, name)
		}
		temp := filepath.Join(filepath.Dir(dir), ".runner-temp-"+name)
		fmt.Fprintf(&out, "# %s:%d: workflow job %s\nmkdir -p %q\nexport RUNNER_TEMP=%q GITHUB_OUTPUT=%q CI=true TF_CLI_CONFIG_FILE=%q\n",
			page, b.line, name, temp, temp, filepath.Join(temp, "output"), mirrorRC)
		envNames := make([]string, 0, len(job.Env))
		for k := range job.Env {
			envNames = append(envNames, k)
		}
		sort.Strings(envNames)
		for _, k := range envNames {
			v := job.Env[k]
			if expressionRE.MatchString(v) {
				// A value GitHub fills in: the test's own (E2B_API_KEY) or a placeholder.
				fmt.Fprintf(&out, "export %s=\"${%s:-%s}\"\n", k, k, expressionRE.ReplaceAllString(v, "docs-run"))
				continue
			}
			fmt.Fprintf(&out, "export %s=%q\n", k, v)
		}
		cwd := filepath.Join(repo, job.Defaults.Run.WorkingDirectory)
		for i, st := range job.Steps {
			switch {
			case st.Uses != "":
				t.Logf("     %s: workflow step %d uses %s: given by the test's folder and PATH", label, i+1, st.Uses)
			case st.Run != "":
				if expressionRE.MatchString(st.Run) {
					t.Fatalf("%s:%d: step %q has an expression in its run script; pass it through env", page, b.line, st.Name)
				}
				fmt.Fprintf(&out, "# step: %s\n(cd %q && set -eo pipefail && %s\n)\n", st.Name, cwd, strings.TrimRight(st.Run, "\n"))
			}
		}
	}
	return out.String()
}

// mirrorConfig writes a CLI configuration that installs the fresh build from a filesystem
// mirror (unpacked layout), as `terraform init` installs a released provider: no overrides.
func mirrorConfig(t *testing.T, work, provDir string) string {
	t.Helper()
	mirror := filepath.Join(work, ".mirror")
	for _, host := range []string{"registry.terraform.io", "registry.opentofu.org"} {
		d := filepath.Join(mirror, host, harness.ProviderAddress, "0.0.1", runtime.GOOS+"_"+runtime.GOARCH)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(provDir, "terraform-provider-e2b")
		if err := os.Symlink(bin, filepath.Join(d, "terraform-provider-e2b_v0.0.1")); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(work, ".mirror.tfrc")
	writeFile(t, rc, fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror))
	return rc
}
