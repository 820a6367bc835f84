package base

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// TestKeptCreateDiagnostics: what the user reads for each way a create of
// an object E2B keeps can end.
func TestKeptCreateDiagnostics(t *testing.T) {
	snap := KeptCreate{Kind: "snapshot", Attr: path.Empty(), ImportID: func(id string) string { return "isb1:" + id }}
	vol := KeptCreate{Kind: "volume", Attr: path.Root("name"), ImportID: func(id string) string { return id }}
	lost := errors.New("connection reset")
	cases := []struct {
		name     string
		k        KeptCreate
		err      error
		keep     bool
		severity diag.Severity
		want     []string
	}{
		{"made", vol, nil, true, 0, nil},
		{"interrupted but found", vol, &e2b.InterruptedCreateError{Kind: "volume", ID: "vol1", Err: context.Canceled}, true,
			diag.SeverityWarning, []string{"Interrupted, but the volume was made", "vol1", "recorded in state"}},
		{"taken", vol, &e2b.ExistsError{Kind: "volume", Name: "data", ID: "vol2", Why: "it existed before"}, false,
			diag.SeverityError, []string{"Volume already exists", "terraform import <address> vol2", "choose another name"}},
		{"twins", snap, &e2b.UnknownCreateError{Kind: "snapshot", Err: lost, Candidates: []string{"t1:default", "t2:default"}}, false,
			diag.SeverityError, []string{"Snapshot may have been made", "terraform import <address> isb1:t1:default", "isb1:t2:default", "delete the others"}},
		{"not found", vol, &e2b.UnknownCreateError{Kind: "volume", Err: lost, MayExist: `a volume named "data"`}, false,
			diag.SeverityError, []string{"Volume may have been made", `look for a volume named "data"`, "import it"}},
		{"refused", vol, errors.New("create volume: 400 Bad Request: Invalid volume name"), false,
			diag.SeverityError, []string{"Could not create volume", "Invalid volume name"}},
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		if keep := c.k.Settled(&diags, "Could not create "+c.k.Kind, c.err); keep != c.keep {
			t.Errorf("%s: keep = %v, want %v", c.name, keep, c.keep)
		}
		if c.want == nil {
			if len(diags) != 0 {
				t.Errorf("%s: diagnostics %v", c.name, diags)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Severity() != c.severity {
			t.Fatalf("%s: diagnostics %v, want one of severity %v", c.name, diags, c.severity)
		}
		text := diags[0].Summary() + "\n" + diags[0].Detail()
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", c.name, text, w)
			}
		}
	}
}
