package e2b

import (
	"context"
	"fmt"
	"time"
)

// Creating a template is POST /v3/templates with a name no template has. E2B
// answers the same way whether it made the template or built into one of the
// same name that appeared since the name was read (its answer carries no
// "created" flag), so the client decides from the template's builds: a
// template and its first build are made together, so the request whose build
// is the template's oldest is the one that made it.

// TemplateTakenError reports a create that landed in a template another
// request made after the name was read: two configurations (or a module used
// twice) naming the same template. The template is not this request's; the
// build the request added to it (BuildID) is never started.
type TemplateTakenError struct {
	Name, TemplateID string
	FirstBuildID     string // the build that made the template
	BuildID          string // the build this request added
}

func (e *TemplateTakenError) Error() string {
	return fmt.Sprintf("template %s (ID %s) was made by another request at the same time (its first build is %s, "+
		"not this request's %s, which is left unstarted)", e.Name, e.TemplateID, e.FirstBuildID, e.BuildID)
}

// TemplateCreateUnsettledError reports a create whose answer was lost (no
// answer, a gateway's error, the caller's context ending). TemplateID is the
// template of that name found afterwards, "" when none was (LookupErr says
// why, when the search failed). A template found may be this request's or
// another's made at the same moment: E2B keeps nothing that tells them apart.
type TemplateCreateUnsettledError struct {
	Name, TemplateID string
	Err, LookupErr   error
}

func (e *TemplateCreateUnsettledError) Error() string {
	switch {
	case e.TemplateID != "":
		return fmt.Sprintf("%v; a template %s (ID %s) exists now, made by this request or by another at the same moment: "+
			"E2B's answer was lost and its API keeps nothing that tells which", e.Err, e.Name, e.TemplateID)
	case e.LookupErr != nil:
		return fmt.Sprintf("%v; E2B may have made template %s anyway, and looking for it failed (%v)", e.Err, e.Name, e.LookupErr)
	}
	return fmt.Sprintf("%v; no template %s was found afterwards, but E2B may still make it", e.Err, e.Name)
}

func (e *TemplateCreateUnsettledError) Unwrap() error { return e.Err }

// RequestNewTemplate creates the template req.Name and its first build, which
// waits to be started. The caller has read the name first and found none.
// A lost answer is settled by looking the name up until E2B can no longer be
// finishing the request: nothing found means nothing was made, and the
// request is sent again; a template found is reported, never adopted (a
// *TemplateCreateUnsettledError). A template that turns out to be another
// request's is a *TemplateTakenError.
func (c *Client) RequestNewTemplate(ctx context.Context, req TemplateRequest) (*TemplateRequested, error) {
	for attempt := 0; ; attempt++ {
		sent := time.Now()
		out, err := c.RequestTemplateBuild(ctx, req)
		if err == nil {
			return out, c.checkMadeBy(ctx, req.Name, out)
		}
		outcome := createOutcome(ctx, err)
		switch outcome {
		case outcomeFailed:
			return nil, err
		case outcomeUnknown, outcomeE2BFailed:
			found, lerr := c.settleTemplateCreate(ctx, req.Name, sent, outcome == outcomeE2BFailed)
			switch {
			case found != "" || lerr != nil:
				return nil, &TemplateCreateUnsettledError{Name: req.Name, TemplateID: found, Err: err, LookupErr: lerr}
			case ctx.Err() != nil:
				return nil, &TemplateCreateUnsettledError{Name: req.Name, Err: err}
			}
		}
		if ctx.Err() != nil || attempt >= c.retryMax {
			return nil, err
		}
		if err := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
	}
}

// checkMadeBy returns a *TemplateTakenError unless the request's build is
// the template's oldest, that is unless this request made the template.
func (c *Client) checkMadeBy(ctx context.Context, name string, req *TemplateRequested) error {
	t, err := c.GetTemplate(ctx, req.TemplateID)
	if err != nil {
		return fmt.Errorf("template %s (ID %s) was requested, but reading it back to tell whether this request made it failed: %w",
			name, req.TemplateID, err)
	}
	var first *TemplateBuild
	tie := false
	for i := range t.Builds {
		b := &t.Builds[i]
		switch {
		case first == nil || b.CreatedAt.Before(first.CreatedAt):
			first, tie = b, false
		case b.CreatedAt.Equal(first.CreatedAt):
			tie = true
		}
	}
	if first != nil && first.BuildID == req.BuildID && !tie {
		return nil
	}
	taken := &TemplateTakenError{Name: name, TemplateID: req.TemplateID, BuildID: req.BuildID}
	if first != nil {
		taken.FirstBuildID = first.BuildID
	}
	return taken
}

// settleTemplateCreate looks the name up until createSettleWindow after the
// request was sent (twice after E2B's own 5xx, which ended the request); it
// returns the ID of the template found, or "" and the last search's error.
func (c *Client) settleTemplateCreate(ctx context.Context, name string, sent time.Time, e2bAnswered bool) (string, error) {
	id, err := settle(ctx, c, sent, e2bAnswered, func(ctx context.Context) (*string, error) {
		t, err := c.GetTemplate(ctx, name)
		switch {
		case err == nil:
			return &t.TemplateID, nil
		case IsNotFound(err):
			return nil, nil
		}
		return nil, err
	}, nil)
	if id == nil {
		return "", err
	}
	return *id, nil
}
