package emulator

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// startTestServer starts an emulator closed at the end of the test.
func startTestServer(t *testing.T, opts Options) *testClient {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	srv, err := Start(opts)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close emulator: %v", err)
		}
	})
	return &testClient{t: t, srv: srv, hc: &http.Client{Timeout: 60 * time.Second}, streams: &http.Client{}}
}

type testClient struct {
	t       *testing.T
	srv     *Server
	hc      *http.Client // unary calls
	streams *http.Client // streaming calls (no overall timeout)
}

// api calls the control plane with the API key and returns status and body.
func (c *testClient) api(method, path string, body any) (int, []byte, http.Header) {
	c.t.Helper()
	return c.request(method, c.srv.APIURL()+path, body, map[string]string{hdrAPIKey: c.srv.APIKey()})
}

func (c *testClient) request(method, url string, body any, headers map[string]string) (int, []byte, http.Header) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return resp.StatusCode, data, resp.Header
}

// wantStatus fails the test unless status matches, showing the body.
func wantStatus(t *testing.T, what string, got int, body []byte, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d; body %s", what, got, want, body)
	}
}

func decode[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

type createdSandbox struct {
	SandboxID       string `json:"sandboxID"`
	TemplateID      string `json:"templateID"`
	EnvdAccessToken string `json:"envdAccessToken"`
}

func (c *testClient) create(body map[string]any) createdSandbox {
	c.t.Helper()
	if _, ok := body["templateID"]; !ok {
		body["templateID"] = "base"
	}
	if _, ok := body["timeout"]; !ok {
		body["timeout"] = 300
	}
	st, data, _ := c.api("POST", "/sandboxes", body)
	wantStatus(c.t, "create sandbox", st, data, http.StatusCreated)
	return decode[createdSandbox](c.t, data)
}

func (c *testClient) detail(id string) controlplane.SandboxDetailJSON {
	c.t.Helper()
	st, data, _ := c.api("GET", "/sandboxes/"+id, nil)
	wantStatus(c.t, "get sandbox", st, data, http.StatusOK)
	return decode[controlplane.SandboxDetailJSON](c.t, data)
}

// envdHeaders addresses a sandbox through the shared listener.
func envdHeaders(sb createdSandbox) map[string]string {
	h := map[string]string{hdrSandboxID: sb.SandboxID, hdrSandboxPort: envdPort}
	if sb.EnvdAccessToken != "" {
		h[hdrAccessToken] = sb.EnvdAccessToken
	}
	return h
}

// rpc calls a unary Connect method.
func (c *testClient) rpc(sb createdSandbox, method string, body any) (int, []byte) {
	c.t.Helper()
	h := envdHeaders(sb)
	h["Connect-Protocol-Version"] = "1"
	st, data, _ := c.request("POST", c.srv.SandboxURL()+"/"+method, body, h)
	return st, data
}

// procStream reads a server-streaming Connect response.
type procStream struct {
	t    *testing.T
	resp *http.Response
	r    *bufio.Reader
	pid  uint32
}

type frame struct {
	flags byte
	msg   map[string]any
}

func (c *testClient) openStream(sb createdSandbox, method string, req any, headers map[string]string) *procStream {
	c.t.Helper()
	payload, err := json.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteByte(0)
	_ = binary.Write(&buf, binary.BigEndian, uint32(len(payload)))
	buf.Write(payload)
	hr, err := http.NewRequest("POST", c.srv.SandboxURL()+"/"+method, &buf)
	if err != nil {
		c.t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/connect+json")
	hr.Header.Set("Connect-Protocol-Version", "1")
	for k, v := range envdHeaders(sb) {
		hr.Header.Set(k, v)
	}
	for k, v := range headers {
		hr.Header.Set(k, v)
	}
	resp, err := c.streams.Do(hr)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	ps := &procStream{t: c.t, resp: resp, r: bufio.NewReader(resp.Body)}
	c.t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("%s: status %d: %s", method, resp.StatusCode, data)
	}
	return ps
}

// startProcess runs command through bash -l -c and reads the start event.
func (c *testClient) startProcess(sb createdSandbox, command string, extra map[string]any, headers map[string]string) *procStream {
	c.t.Helper()
	proc := map[string]any{"cmd": "/bin/bash", "args": []string{"-l", "-c", command}}
	for k, v := range extra {
		proc[k] = v
	}
	req := map[string]any{"process": proc, "stdin": false}
	for _, k := range []string{"stdin", "tag"} {
		if v, ok := extra[k]; ok {
			req[k] = v
			delete(proc, k)
		}
	}
	ps := c.openStream(sb, "process.Process/Start", req, headers)
	ps.expectStart()
	return ps
}

func (ps *procStream) expectStart() {
	ps.t.Helper()
	f, err := ps.next()
	if err != nil {
		ps.t.Fatalf("read start event: %v", err)
	}
	ev, _ := f.msg["event"].(map[string]any)
	start, ok := ev["start"].(map[string]any)
	if !ok {
		ps.t.Fatalf("first message is not a start event: %v", f.msg)
	}
	ps.pid = uint32(start["pid"].(float64))
}

func (ps *procStream) next() (frame, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(ps.r, hdr[:]); err != nil {
		return frame{}, err
	}
	payload := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
	if _, err := io.ReadFull(ps.r, payload); err != nil {
		return frame{}, err
	}
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		return frame{}, fmt.Errorf("decode %s: %w", payload, err)
	}
	return frame{flags: hdr[0], msg: m}, nil
}

// result is everything after the start event.
type result struct {
	stdout, stderr string
	end            map[string]any // nil when the stream ended without an end event
	endStream      map[string]any
	keepalives     int
	dropped        error // non-nil when the connection ended without end-stream
}

func (ps *procStream) collect() result {
	ps.t.Helper()
	var res result
	var out, errb strings.Builder
	for {
		f, err := ps.next()
		if err != nil {
			res.dropped = err
			break
		}
		if f.flags&connectrpc.FlagEndStream != 0 {
			res.endStream = f.msg
			break
		}
		ev, _ := f.msg["event"].(map[string]any)
		switch {
		case ev["data"] != nil:
			d := ev["data"].(map[string]any)
			for k, v := range d {
				b, err := base64.StdEncoding.DecodeString(v.(string))
				if err != nil {
					ps.t.Fatalf("bad base64 in %v", d)
				}
				if k == "stderr" {
					errb.Write(b)
				} else {
					out.Write(b)
				}
			}
		case ev["end"] != nil:
			res.end = ev["end"].(map[string]any)
		case ev["keepalive"] != nil:
			res.keepalives++
		}
	}
	res.stdout, res.stderr = out.String(), errb.String()
	return res
}

// run executes command in the sandbox and returns its complete result.
func (c *testClient) run(sb createdSandbox, command string) result {
	c.t.Helper()
	return c.startProcess(sb, command, nil, nil).collect()
}

// mustRun runs command and fails unless it exits 0.
func (c *testClient) mustRun(sb createdSandbox, command string) string {
	c.t.Helper()
	res := c.run(sb, command)
	if res.end == nil || res.end["exitCode"] != nil || res.endStream["error"] != nil {
		c.t.Fatalf("command %q failed: end=%v endStream=%v stdout=%q stderr=%q", command, res.end, res.endStream, res.stdout, res.stderr)
	}
	return res.stdout
}

// eventually polls cond every 50 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// homeDir and tmpDir are where the shared layout keeps a sandbox's /home/user and /tmp.
func homeDir(m *envd.Machine) string { return filepath.Join(m.Dir(), "home") }
func tmpDir(m *envd.Machine) string  { return filepath.Join(m.Dir(), "tmp") }

// machine is the machine of a live sandbox.
func (c *testClient) machine(id string) *envd.Machine {
	c.t.Helper()
	_, m, ok := c.srv.cp.Sandboxes().Get(id)
	if !ok {
		c.t.Fatalf("no sandbox %s", id)
	}
	return m
}
