package e2b

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Volume is a team volume. Token (for the volume-content API) is set by
// create and get, never by list.
type Volume struct {
	VolumeID, Name, Token string
	Domain                string // only for teams on a custom cluster
}

// VolumeNamePattern is E2B's rule for volume names.
var VolumeNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

type wireVolume struct {
	VolumeID string `json:"volumeID"`
	Name     string `json:"name"`
	Token    string `json:"token"`
	Domain   string `json:"domain"`
}

func (w wireVolume) toVolume() *Volume {
	return &Volume{VolumeID: w.VolumeID, Name: w.Name, Token: w.Token, Domain: w.Domain}
}

// CreateVolume creates a volume, never two and never adopting one it did not
// make. E2B keeps volume names unique in a team (a second create of a name
// answers 400 "already exists"). The client lists the team's volumes first;
// when the answer is lost it looks the name up, and takes a volume of that
// name as its own only when it was not in that list. Found nowhere, the
// create is sent again: a first one that lands late makes it fail as taken,
// and the volume is then found. A name taken before the create is an
// *ExistsError (IsExists). What E2B's API cannot tell: a volume of the same
// name that another client made between the list and this create is taken
// for this create's when this create's answer was lost.
func (c *Client) CreateVolume(ctx context.Context, name string) (*Volume, error) {
	if !VolumeNamePattern.MatchString(name) {
		return nil, fmt.Errorf("create volume: name %q may contain only letters, digits, '_' and '-'", name)
	}
	op := "create volume " + strconv.Quote(name)
	before, err := c.ListVolumes(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: list the team's volumes first (to tell the volume this create makes from one that exists): %w", op, err)
	}
	existed := map[string]bool{}
	for _, v := range before {
		existed[v.VolumeID] = true
	}
	byName := func(ctx context.Context) (*Volume, error) {
		list, err := c.ListVolumes(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range list {
			if v.Name == name {
				return &v, nil
			}
		}
		return nil, nil
	}
	return createKept(ctx, c, keptCreate[Volume]{
		kind: "volume", name: name, resendable: true,
		idOf:     func(v *Volume) string { return v.VolumeID },
		mayExist: fmt.Sprintf("a volume named %q", name),
		post: func(ctx context.Context) (*Volume, error) {
			var w wireVolume
			_, err := c.callAPI(ctx, apiCall{
				op: op, method: http.MethodPost, path: "/volumes",
				body: map[string]string{"name": name}, class: retryRateLimited, out: &w,
			})
			if err != nil {
				return nil, err
			}
			return w.toVolume(), nil
		},
		taken: isVolumeNameTaken,
		holder: func(ctx context.Context) (string, error) {
			v, err := byName(ctx)
			if v == nil {
				return "", err
			}
			return v.VolumeID, nil
		},
		find: func(ctx context.Context) (*Volume, error) {
			v, err := byName(ctx)
			switch {
			case v == nil:
				return nil, err
			case existed[v.VolumeID]:
				return nil, &ExistsError{Kind: "volume", Name: name, ID: v.VolumeID,
					Why: "it was in the team's volumes listed before this create was sent"}
			}
			if full, err := c.GetVolume(ctx, v.VolumeID); err == nil {
				return full, nil
			}
			return v, nil // it exists: keep it, its token is read later
		},
	})
}

// isVolumeNameTaken reports E2B's refusal of a volume create because the
// name is taken (400 "Volume with name '<name>' already exists").
func isVolumeNameTaken(err error) bool {
	e, ok := asAPIError(err)
	return ok && IsBadRequest(err) && strings.Contains(strings.ToLower(e.Message), "already exists")
}

// GetVolume reads a volume by ID, with its token.
func (c *Client) GetVolume(ctx context.Context, volumeID string) (*Volume, error) {
	var w wireVolume
	_, err := c.callAPI(ctx, apiCall{
		op: "get volume " + strconv.Quote(volumeID), method: http.MethodGet,
		path: "/volumes/" + pathSeg(volumeID), subject: volumeID, class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return w.toVolume(), nil
}

// ListVolumes lists the team's volumes (without tokens).
func (c *Client) ListVolumes(ctx context.Context) ([]Volume, error) {
	var w []wireVolume
	_, err := c.callAPI(ctx, apiCall{op: "list volumes", method: http.MethodGet, path: "/volumes", class: retryIdempotent, out: &w})
	if err != nil {
		return nil, err
	}
	out := make([]Volume, 0, len(w))
	for _, v := range w {
		out = append(out, *v.toVolume())
	}
	return out, nil
}

// FindVolume reads a volume by ID, or else by name; nil when neither exists.
func (c *Client) FindVolume(ctx context.Context, idOrName string) (*Volume, error) {
	v, err := c.GetVolume(ctx, idOrName)
	if err == nil || !IsNotFound(err) {
		return v, err
	}
	list, err := c.ListVolumes(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		if l.Name == idOrName {
			return c.GetVolume(ctx, l.VolumeID)
		}
	}
	return nil, nil
}

// DeleteVolume deletes a volume. A volume still mounted by a running or
// paused sandbox is refused: IsVolumeInUse tells that answer apart.
func (c *Client) DeleteVolume(ctx context.Context, volumeID string) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "delete volume " + strconv.Quote(volumeID), method: http.MethodDelete,
		path: "/volumes/" + pathSeg(volumeID), subject: volumeID, class: retryIdempotent,
	})
	return err
}

// IsVolumeInUse reports E2B's refusal to delete a mounted volume.
func IsVolumeInUse(err error) bool { return IsConflict(err) }
