package e2b

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// missingVolumePattern matches E2B's 400 to a sandbox create that mounts a volume the team does
// not have: "volume 'build-cahce' not found".
var missingVolumePattern = regexp.MustCompile(`volume '([^']*)' not found`)

// MissingTemplateOnCreate reports E2B's 404 to a sandbox create whose template does not exist
// ("template 'bsae' not found").
func MissingTemplateOnCreate(err error) bool {
	e, ok := asAPIError(err)
	return ok && e.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(e.Message), "template")
}

// MissingVolumeOnCreate returns the volume named in E2B's 400 to a sandbox create that mounts a
// volume the team does not have.
func MissingVolumeOnCreate(err error) (string, bool) {
	e, ok := asAPIError(err)
	if !ok || e.StatusCode != http.StatusBadRequest {
		return "", false
	}
	m := missingVolumePattern.FindStringSubmatch(e.Message)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ErrCannotTell is returned by the look-ups below for a reference they do not check.
var ErrCannotTell = errors.New("cannot tell without creating")

// TemplateMissing reports whether the team sees no template by ref (a name, name:tag or template
// ID), with at most two reads: the name's alias (as E2B's SDK's Template.exists, a template of
// another team counts as existing), then the ID. A namespaced reference ("team/name") is not
// looked up (ErrCannotTell): the create alone says whether it resolves.
func (c *Client) TemplateMissing(ctx context.Context, ref string) (bool, error) {
	name, _, _ := strings.Cut(ref, ":")
	if name == "" || strings.Contains(name, "/") {
		return false, ErrCannotTell
	}
	if exists, err := c.TemplateExists(ctx, name); err != nil || exists {
		return false, err
	}
	_, err := c.GetTemplate(ctx, name)
	switch {
	case err == nil, IsForbidden(err):
		return false, nil
	case IsNotFound(err):
		return true, nil
	}
	return false, err
}

// MissingVolumes returns those of names that the team has no volume of, in order (one read).
func (c *Client) MissingVolumes(ctx context.Context, names []string) ([]string, error) {
	vols, err := c.ListVolumes(ctx)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range names {
		if !slices.ContainsFunc(vols, func(v Volume) bool { return v.Name == n }) {
			missing = append(missing, n)
		}
	}
	return missing, nil
}
