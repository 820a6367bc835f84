package base

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// When it applies (a saved plan too), the CLI plans each resource again and refuses any value
// that differs from the plan as a provider bug ("inconsistent final plan") before the provider
// can say anything; it never tells the provider what it planned. So a local file edited after
// the plan is caught where the plan is made again, against what the same run saw: the refresh
// that precedes an update's plan records, in private state, the local files it found while
// they differed from what E2B holds (an update pending), and the CLI hands that record to the
// plan made again at apply. A create has no refresh: its hashes are planned as known after
// apply, so the files are read once, as they are sent.
const localSeenKey = "local_seen"

// DescLocalEdit says, in the resources' docs, what happens to local files edited after the plan.
const DescLocalEdit = "A local file edited after the plan (between `plan -out` and `apply PLANFILE`, or at the " +
	"prompt) fails the apply of an update with an error naming it, before anything is written, and asks to plan " +
	"again; a create or replacement plans its hashes as known after apply and sends what the files hold then."

// LocalSeen is what a refresh saw of a resource's local source: for each file its content
// sha256 and mode ("" for the single file of a file source).
type LocalSeen struct {
	Source  string            `json:"src"`
	Include []string          `json:"inc,omitempty"`
	Exclude []string          `json:"exc,omitempty"`
	Files   map[string]string `json:"f"`
}

func SeenFolderFiles(files []e2b.FolderFile) map[string]string {
	out := make(map[string]string, len(files))
	for _, f := range files {
		out[f.Path] = fmt.Sprintf("%s %04o", f.SHA256, f.Mode)
	}
	return out
}

func GetLocalSeen(ctx context.Context, p PrivateState) *LocalSeen {
	b, _ := p.GetKey(ctx, localSeenKey)
	var s LocalSeen
	if len(b) == 0 || json.Unmarshal(b, &s) != nil {
		return nil // None or unreadable: nothing to check against.
	}
	return &s
}

// SetLocalSeen records s; nil clears the record.
func SetLocalSeen(ctx context.Context, p PrivateState, s *LocalSeen) diag.Diagnostics {
	if s == nil {
		return p.SetKey(ctx, localSeenKey, nil)
	}
	b, _ := json.Marshal(s) // strings only: cannot fail
	return p.SetKey(ctx, localSeenKey, b)
}

// ChangedSinceSeen lists the files of now that differ from what seen recorded for the same
// source and patterns (edited, added or removed), in path order; none when seen is another
// source's record or there is none.
func ChangedSinceSeen(seen *LocalSeen, source string, include, exclude []string, now map[string]string) []string {
	if seen == nil || seen.Source != source || !slices.Equal(seen.Include, include) || !slices.Equal(seen.Exclude, exclude) {
		return nil
	}
	var changed []string
	for p, v := range now {
		if old, ok := seen.Files[p]; !ok {
			changed = append(changed, p+" (added)")
		} else if old != v {
			changed = append(changed, p+" (edited)")
		}
	}
	for p := range seen.Files {
		if _, ok := now[p]; !ok {
			changed = append(changed, p+" (removed)")
		}
	}
	sort.Strings(changed)
	return changed
}

// ChangedSincePlanDiagnostic is the error for local files edited after the plan read them;
// changed is nil for a file source.
func ChangedSincePlanDiagnostic(at path.Path, source string, changed []string) diag.Diagnostic {
	what := "The local file " + source + " changed after this run's plan read it."
	if changed != nil {
		what = fmt.Sprintf("These files of %s changed after this run's plan read them: %s.", source, strings.Join(changed, ", "))
	}
	return diag.NewAttributeErrorDiagnostic(at, "Local files changed since the plan",
		what+" The plan no longer describes what would be uploaded, so nothing was. Run plan again (with refresh: "+
			"a plan with -refresh=false checks against the last refresh) and apply the new plan.")
}

// Replacing tells whether a planned change replaces the object: there is no prior object, or one
// of the attributes that force a replacement is unknown or differs from the prior state.
func Replacing(ctx context.Context, plan, state interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}, stateNull bool, attrs ...string) bool {
	if stateNull {
		return true
	}
	for _, a := range attrs {
		var p, s types.String
		plan.GetAttribute(ctx, path.Root(a), &p)
		state.GetAttribute(ctx, path.Root(a), &s)
		if p.IsUnknown() || !p.Equal(s) {
			return true
		}
	}
	return false
}

// PrivateState is the part of resp.Private the stamp helpers need.
type PrivateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}
