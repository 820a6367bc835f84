package e2b

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
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

// CreateVolume creates a volume. It is retried only on 429: a lost answer
// cannot be told from a failure, and the name is then taken (look it up
// with FindVolume).
func (c *Client) CreateVolume(ctx context.Context, name string) (*Volume, error) {
	if !VolumeNamePattern.MatchString(name) {
		return nil, fmt.Errorf("create volume: name %q may contain only letters, digits, '_' and '-'", name)
	}
	var w wireVolume
	_, err := c.callAPI(ctx, apiCall{
		op: "create volume " + strconv.Quote(name), method: http.MethodPost, path: "/volumes",
		body: map[string]string{"name": name}, class: retryRateLimited, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return w.toVolume(), nil
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
