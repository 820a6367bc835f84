package emulatortest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// Template builds: a build request, its file context and its status.

// RequestedBuild is what POST /v3/templates answers.
type RequestedBuild struct {
	TemplateID string   `json:"templateID"`
	BuildID    string   `json:"buildID"`
	Names      []string `json:"names"`
	Tags       []string `json:"tags"`
}

// BuildStatus is a build's status with its log entries.
type BuildStatus struct {
	Status     string                `json:"status"`
	LogEntries []store.BuildLogEntry `json:"logEntries"`
	Reason     *store.BuildReason    `json:"reason"`
}

// ContextArchive builds a gzip tar like the SDK's upload: files by relative
// path; a value starting with "->" is a symlink target.
func ContextArchive(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: time.Now()}
		if strings.HasSuffix(name, "/") {
			h = &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeDir, ModTime: time.Now()}
		} else if strings.HasPrefix(body, "->") {
			h = &tar.Header{Name: name, Linkname: body[2:], Typeflag: tar.TypeSymlink, ModTime: time.Now()}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// RequestBuild registers a build (POST /v3/templates).
func (c *Client) RequestBuild(body map[string]any) RequestedBuild {
	c.T.Helper()
	st, data, _ := c.API("POST", "/v3/templates", body)
	WantStatus(c.T, "request build", st, data, http.StatusAccepted)
	return Decode[RequestedBuild](c.T, data)
}

// UploadContext uploads an archive under hash unless the emulator has it.
func (c *Client) UploadContext(templateID, hash string, archive []byte) {
	c.T.Helper()
	st, data, _ := c.API("GET", "/templates/"+templateID+"/files/"+hash, nil)
	WantStatus(c.T, "files link", st, data, http.StatusCreated)
	link := Decode[controlplane.TemplateBuildFileUploadJSON](c.T, data)
	if link.Present {
		return
	}
	if link.URL == nil {
		c.T.Fatalf("no upload URL in %s", data)
	}
	req, err := http.NewRequest("PUT", *link.URL, bytes.NewReader(archive))
	if err != nil {
		c.T.Fatal(err)
	}
	for k, v := range link.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.T.Fatalf("upload: %d", resp.StatusCode)
	}
}

// WaitBuild polls the status like the SDK (logsOffset advancing) until the
// build ends, and returns the final status with every log entry.
func (c *Client) WaitBuild(b RequestedBuild) BuildStatus {
	c.T.Helper()
	var all []store.BuildLogEntry
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, data, _ := c.API("GET", "/templates/"+b.TemplateID+"/builds/"+b.BuildID+"/status?logsOffset="+strconv.Itoa(len(all)), nil)
		WantStatus(c.T, "build status", st, data, http.StatusOK)
		s := Decode[BuildStatus](c.T, data)
		all = append(all, s.LogEntries...)
		if (s.Status == store.BuildReady || s.Status == store.BuildError) && len(s.LogEntries) == 0 {
			s.LogEntries = all
			return s
		}
		if time.Now().After(deadline) {
			c.T.Fatalf("build still %s; logs %+v", s.Status, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartBuild starts a requested build with its steps.
func (c *Client) StartBuild(b RequestedBuild, body map[string]any) {
	c.T.Helper()
	st, data, _ := c.API("POST", "/v2/templates/"+b.TemplateID+"/builds/"+b.BuildID, body)
	WantStatus(c.T, "start build", st, data, http.StatusAccepted)
}

// LogText is a build log as lines of level, step and message.
func LogText(entries []store.BuildLogEntry) string {
	var sb strings.Builder
	for _, e := range entries {
		step := ""
		if e.Step != nil {
			step = *e.Step
		}
		sb.WriteString(e.Level + " " + step + " " + e.Message + "\n")
	}
	return sb.String()
}
