package provider

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// uploadRecorder is a proxy in front of the emulator that records every file envd receives
// through a multipart upload: its path and its bytes.
type uploadRecorder struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string][]byte
}

func newUploadRecorder(t *testing.T, emu *emulator.Server) *uploadRecorder {
	t.Helper()
	target, err := url.Parse(emu.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	r := &uploadRecorder{files: map[string][]byte{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/files" {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			r.record(req.Header.Get("Content-Type"), body)
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is where the provider's api_url and sandbox_url should point.
func (r *uploadRecorder) URL() string { return r.srv.URL }

func (r *uploadRecorder) record(contentType string, body []byte) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return
		}
		b, _ := io.ReadAll(p)
		r.mu.Lock()
		r.files[p.FileName()] = b
		r.mu.Unlock()
	}
}

// check fails for any uploaded path that contains one of names, or any content that holds
// one of secrets; it returns how many files were uploaded.
func (r *uploadRecorder) check(t *testing.T, when string, names, secrets []string) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, b := range r.files {
		for _, n := range names {
			if strings.Contains(p, n) {
				t.Errorf("%s: %s was uploaded", when, p)
			}
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s: %s was uploaded holding %q", when, p, s)
			}
		}
	}
	return len(r.files)
}

const pullRequestLayoutConfig = harness.RequiredProviders + `
resource "e2b_sandbox" "pr" {
  template = "base"
}

resource "e2b_sandbox_folder" "code" {
  sandbox_id  = e2b_sandbox.pr.id
  source      = "${path.module}/.."
  destination = "/home/user/repo"
}

ephemeral "e2b_sandbox" "run" {
  upload {
    source      = "${path.module}/.."
    destination = "/home/user/repo"
  }
}

resource "e2b_sandbox_command" "tests" {
  sandbox_id_wo = ephemeral.e2b_sandbox.run.id
  cwd           = "/home/user/repo"
  command       = "cat src/app.py"
}
`

// The pull-request guide's layout: the configuration in repo/infra uploads repo/ ("${path.module}/.."),
// with its local state inside the folder, and a pull request that committed links to the runner's
// secrets. The first apply succeeds, the next plan is empty, a saved plan applies, and neither
// Terraform's files nor anything the links lead to reaches a sandbox, at plan or at apply.
func TestCLIFolderUploads_pullRequestLayout(t *testing.T) {
	emu := newTestEmulator(t)
	ws := harness.NewWorkspace(t, emu)
	skipBelowWriteOnly(t, ws)
	rec := newUploadRecorder(t, emu)
	ws.ExtraEnv = append(ws.ExtraEnv, "E2B_API_URL="+rec.URL(), "E2B_SANDBOX_URL="+rec.URL(),
		"PR_RUNNER_SECRET=runner-env-secret")

	outside := t.TempDir()
	harness.WriteTree(t, outside, map[string]string{"credentials": "aws-secret-key"})
	repo := t.TempDir()
	harness.WriteTree(t, repo, map[string]string{"src/app.py": "print('hello')\n", "README.md": "# repo\n",
		"infra/main.tf": pullRequestLayoutConfig})
	for link, target := range map[string]string{"creds": filepath.Join(outside, "credentials"),
		"environ": "/proc/self/environ", "src/up": "../../" + filepath.Base(outside) + "/credentials"} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Skipf("symbolic links not available here: %v", err)
		}
	}
	ws.Dir = filepath.Join(repo, "infra")
	names := []string{"tfstate", ".terraform", "tfplan", "creds", "environ", "src/up"}
	secrets := []string{"aws-secret-key", "runner-env-secret", `"serial"`}
	ctx := context.Background()

	r := ws.Apply(ctx)
	if r.Err != nil {
		t.Fatalf("first apply: %v\n%s", r.Err, r.Output())
	}
	for _, w := range []string{"Links out of the source folder are not followed", "creds", "environ"} {
		if !strings.Contains(r.Output(), w) {
			t.Errorf("the apply does not warn with %q:\n%s", w, r.Output())
		}
	}
	if n := rec.check(t, "first apply", names, secrets); n == 0 {
		t.Fatal("nothing was uploaded")
	}
	if _, err := os.Stat(filepath.Join(ws.Dir, "terraform.tfstate")); err != nil {
		t.Fatalf("the state is not inside the uploaded folder: %v", err)
	}

	r = ws.Run(ctx, "plan", "-no-color", "-input=false", "-detailed-exitcode", "-out=tfplan")
	if r.Err != nil {
		t.Fatalf("the second plan is not empty: %v\n%s", r.Err, r.Output())
	}
	if !strings.Contains(r.Output(), "Terraform's working files are not uploaded") ||
		!strings.Contains(r.Output(), "infra/terraform.tfstate") {
		t.Errorf("the plan does not say the state is left out:\n%s", r.Output())
	}
	rec.check(t, "second plan", names, secrets)
	if r = ws.Run(ctx, "apply", "-no-color", "-input=false", "tfplan"); r.Err != nil {
		t.Fatalf("apply of the saved plan: %v\n%s", r.Err, r.Output())
	}
	rec.check(t, "apply of the saved plan", names, secrets)
	for _, res := range ws.State(ctx) {
		if res.Type != "e2b_sandbox_folder" {
			continue
		}
		files, _ := res.Values["files"].(map[string]any)
		for p := range files {
			for _, n := range names {
				if strings.Contains(p, n) {
					t.Errorf("state lists %s among the folder's files", p)
				}
			}
		}
		if _, ok := files["src/app.py"]; !ok {
			t.Errorf("state lacks src/app.py: %v", files)
		}
	}
	if r = ws.Destroy(ctx); r.Err != nil {
		t.Fatalf("destroy: %v\n%s", r.Err, r.Output())
	}
}
