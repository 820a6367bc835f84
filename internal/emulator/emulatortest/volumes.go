package emulatortest

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

// Volumes: the volume-content API.

// CreateVolume creates a volume named name.
func (c *Client) CreateVolume(name string) controlplane.VolumeAndTokenJSON {
	c.T.Helper()
	st, data, _ := c.API("POST", "/volumes", map[string]any{"name": name})
	WantStatus(c.T, "create volume", st, data, http.StatusCreated)
	return Decode[controlplane.VolumeAndTokenJSON](c.T, data)
}

// VolumeContent calls the volume-content API with ?path=p; what follows a "?" in p is more
// of the query.
func (c *Client) VolumeContent(v controlplane.VolumeAndTokenJSON, method, route, p string, body string) (int, []byte) {
	c.T.Helper()
	p, more, _ := strings.Cut(p, "?")
	if more != "" {
		more = "&" + more
	}
	req, err := http.NewRequest(method, c.Srv.APIURL()+"/volumecontent/"+v.VolumeID+"/"+route+"?path="+url.QueryEscape(p)+more, strings.NewReader(body))
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+v.Token)
	if body != "" {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatal(err)
	}
	return resp.StatusCode, data
}
