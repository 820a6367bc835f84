package chaos

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

const noopApplyConfig = harness.RequiredProviders + `
resource "e2b_sandbox" "s" {
  timeout = "10m"
}

resource "e2b_sandbox_file" "f" {
  sandbox_id = e2b_sandbox.s.id
  path       = "/home/user/same.txt"
  content    = "same\n"
}
`

// An apply with nothing to change leaves the state as it was: no refresh rewrites what the
// provider keeps of a sandbox or a file, so each run does not write a new state version.
func TestNoOpApplyKeepsState(t *testing.T) {
	_, w := chaosWorkspace(t, noopApplyConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	defer w.Destroy(ctx)
	if r := w.Apply(ctx); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Output())
	}
	serial := func() int {
		b, err := os.ReadFile(filepath.Join(w.Dir, "terraform.tfstate"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Serial int }
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st.Serial
	}
	// The first refresh after a write records the file's modification time: a change that
	// belongs to the write. From then on nothing changes.
	if r := w.Apply(ctx); r.Err != nil {
		t.Fatalf("second apply: %v\n%s", r.Err, r.Output())
	}
	before := serial()
	for i := range 2 {
		if r := w.Apply(ctx); r.Err != nil {
			t.Fatalf("no-op apply %d: %v\n%s", i, r.Err, r.Output())
		}
	}
	if after := serial(); after != before {
		t.Errorf("two applies with nothing to change moved the state from serial %d to %d", before, after)
	}
}
