package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// State records "error" only for a build E2B failed; a build the provider
// stopped following (timeout, interrupt, lost polls) keeps what is known.
func TestStatusAfterError(t *testing.T) {
	requested := &e2b.BuildResult{TemplateRequested: e2b.TemplateRequested{TemplateID: "t", BuildID: "b"}}
	polled := &e2b.BuildResult{TemplateRequested: requested.TemplateRequested,
		Status: &e2b.TemplateBuildStatus{Status: e2b.BuildStatusBuilding}}
	failed := fmt.Errorf("build: %w", &e2b.BuildFailedError{TemplateID: "t", BuildID: "b", Message: "step 2 failed"})
	for _, tc := range []struct {
		name string
		res  *e2b.BuildResult
		err  error
		want string
	}{
		{"failed at E2B", polled, failed, e2b.BuildStatusError},
		{"stopped after a poll", polled, context.DeadlineExceeded, e2b.BuildStatusBuilding},
		{"stopped before the first poll", requested, context.Canceled, e2b.BuildStatusBuilding},
		{"polls lost", requested, errors.New("connection reset"), e2b.BuildStatusBuilding},
	} {
		if got := statusAfterError(tc.res, tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
