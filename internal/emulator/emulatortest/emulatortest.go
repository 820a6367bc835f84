// Package emulatortest is the harness the emulator's tests share: it starts an emulator that
// the test closes, and speaks E2B's control-plane API, envd's REST and Connect APIs, the
// volume-content API and the template-build API to it as a client would. Tests of any emulator
// package import it from an external test package (package x_test), since it imports the root
// package that imports them.
package emulatortest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
)

// The headers the emulator routes by, as E2B's clients send them.
const (
	HeaderAPIKey      = "X-API-Key"
	HeaderSandboxID   = "E2b-Sandbox-Id"
	HeaderSandboxPort = "E2b-Sandbox-Port"
	HeaderAccessToken = "X-Access-Token"
	EnvdPort          = "49983"
)

// Start starts an emulator closed at the end of the test.
func Start(t *testing.T, opts emulator.Options) *Client {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close emulator: %v", err)
		}
	})
	return &Client{T: t, Srv: srv, HC: &http.Client{Timeout: 60 * time.Second}, Streams: &http.Client{}}
}

// Client is a test's client of one emulator.
type Client struct {
	T       *testing.T
	Srv     *emulator.Server
	HC      *http.Client // unary calls
	Streams *http.Client // streaming calls (no overall timeout)
}

// API calls the control plane with the API key and returns status and body.
func (c *Client) API(method, path string, body any) (int, []byte, http.Header) {
	c.T.Helper()
	return c.Request(method, c.Srv.APIURL()+path, body, map[string]string{HeaderAPIKey: c.Srv.APIKey()})
}

// Pages GETs each page of a paged control-plane list at path (which carries a
// query; each next page adds its nextToken) and hands its body to page, until
// a page has no X-Next-Token or maxPages were read. what names the list in a
// failure.
func (c *Client) Pages(what, path string, maxPages int, page func(data []byte)) {
	c.T.Helper()
	next := ""
	for n := 0; n < maxPages; n++ {
		p := path
		if next != "" {
			p += "&nextToken=" + url.QueryEscape(next)
		}
		st, data, hdr := c.API("GET", p, nil)
		WantStatus(c.T, what, st, data, http.StatusOK)
		page(data)
		if next = hdr.Get("X-Next-Token"); next == "" {
			return
		}
	}
}

// Request sends body as JSON to url with headers and returns status, body and headers.
func (c *Client) Request(method, url string, body any, headers map[string]string) (int, []byte, http.Header) {
	c.T.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			c.T.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		c.T.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if _, set := headers["Authorization"]; !set && strings.Contains(req.URL.Path, "/_emulator/") {
		req.Header.Set("Authorization", "Bearer "+c.Srv.AdminToken())
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return resp.StatusCode, data, resp.Header
}

// WantStatus fails the test unless status matches, showing the body.
func WantStatus(t *testing.T, what string, got int, body []byte, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d; body %s", what, got, want, body)
	}
}

// Decode unmarshals data or fails the test.
func Decode[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// Sandbox is what a create answers.
type Sandbox struct {
	SandboxID       string `json:"sandboxID"`
	TemplateID      string `json:"templateID"`
	EnvdAccessToken string `json:"envdAccessToken"`
}

// Create creates a sandbox (from base for 300 s unless body says otherwise).
func (c *Client) Create(body map[string]any) Sandbox {
	c.T.Helper()
	if _, ok := body["templateID"]; !ok {
		body["templateID"] = "base"
	}
	if _, ok := body["timeout"]; !ok {
		body["timeout"] = 300
	}
	st, data, _ := c.API("POST", "/sandboxes", body)
	WantStatus(c.T, "create sandbox", st, data, http.StatusCreated)
	return Decode[Sandbox](c.T, data)
}

// Detail is GET /sandboxes/{id}.
func (c *Client) Detail(id string) controlplane.SandboxDetailJSON {
	c.T.Helper()
	st, data, _ := c.API("GET", "/sandboxes/"+id, nil)
	WantStatus(c.T, "get sandbox", st, data, http.StatusOK)
	return Decode[controlplane.SandboxDetailJSON](c.T, data)
}

// EnvdHeaders addresses a sandbox through the shared listener.
func EnvdHeaders(sb Sandbox) map[string]string {
	h := map[string]string{HeaderSandboxID: sb.SandboxID, HeaderSandboxPort: EnvdPort}
	if sb.EnvdAccessToken != "" {
		h[HeaderAccessToken] = sb.EnvdAccessToken
	}
	return h
}

// RPC calls a unary Connect method.
func (c *Client) RPC(sb Sandbox, method string, body any) (int, []byte) {
	c.T.Helper()
	h := EnvdHeaders(sb)
	h["Connect-Protocol-Version"] = "1"
	st, data, _ := c.Request("POST", c.Srv.SandboxURL()+"/"+method, body, h)
	return st, data
}

// envdRequest is a POST to path on the sandbox's envd with contentType, the
// sandbox's envd headers and then headers (which win).
func (c *Client) envdRequest(sb Sandbox, path string, body io.Reader, contentType string, headers map[string]string) *http.Request {
	c.T.Helper()
	req, err := http.NewRequest("POST", c.Srv.SandboxURL()+path, body)
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range EnvdHeaders(sb) {
		req.Header.Set(k, v)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

// Stream reads a server-streaming Connect response.
type Stream struct {
	T    *testing.T
	Resp *http.Response
	r    *bufio.Reader
	PID  uint32
}

// Frame is one message of a Connect stream.
type Frame struct {
	Flags byte
	Msg   map[string]any
}

// OpenStream calls a server-streaming Connect method of the sandbox's envd.
func (c *Client) OpenStream(sb Sandbox, method string, req any, headers map[string]string) *Stream {
	c.T.Helper()
	payload, err := json.Marshal(req)
	if err != nil {
		c.T.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteByte(0)
	_ = binary.Write(&buf, binary.BigEndian, uint32(len(payload)))
	buf.Write(payload)
	hr := c.envdRequest(sb, "/"+method, &buf, "application/connect+json", headers)
	hr.Header.Set("Connect-Protocol-Version", "1")
	resp, err := c.Streams.Do(hr)
	if err != nil {
		c.T.Fatalf("%s: %v", method, err)
	}
	ps := &Stream{T: c.T, Resp: resp, r: bufio.NewReader(resp.Body)}
	c.T.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		c.T.Fatalf("%s: status %d: %s", method, resp.StatusCode, data)
	}
	return ps
}

// StartProcess runs command through bash -l -c and reads the start event.
func (c *Client) StartProcess(sb Sandbox, command string, extra map[string]any, headers map[string]string) *Stream {
	c.T.Helper()
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
	ps := c.OpenStream(sb, "process.Process/Start", req, headers)
	ps.ExpectStart()
	return ps
}

// ExpectOutput reads the next event and fails unless it carries output: the
// command is past its setup.
func (ps *Stream) ExpectOutput() {
	ps.T.Helper()
	if f, err := ps.Next(); err != nil || f.Msg["event"].(map[string]any)["data"] == nil {
		ps.T.Fatalf("expected output, got %v %v", f.Msg, err)
	}
}

// ExpectStart reads the start event and keeps the process's pid.
func (ps *Stream) ExpectStart() {
	ps.T.Helper()
	f, err := ps.Next()
	if err != nil {
		ps.T.Fatalf("read start event: %v", err)
	}
	ev, _ := f.Msg["event"].(map[string]any)
	start, ok := ev["start"].(map[string]any)
	if !ok {
		ps.T.Fatalf("first message is not a start event: %v", f.Msg)
	}
	ps.PID = uint32(start["pid"].(float64))
}

// Next reads one frame.
func (ps *Stream) Next() (Frame, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(ps.r, hdr[:]); err != nil {
		return Frame{}, err
	}
	payload := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
	if _, err := io.ReadFull(ps.r, payload); err != nil {
		return Frame{}, err
	}
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		return Frame{}, fmt.Errorf("decode %s: %w", payload, err)
	}
	return Frame{Flags: hdr[0], Msg: m}, nil
}

// Result is everything after the start event.
type Result struct {
	Stdout, Stderr string
	End            map[string]any // nil when the stream ended without an end event
	EndStream      map[string]any
	Keepalives     int
	Dropped        error // non-nil when the connection ended without end-stream
}

// Collect reads everything up to the end of the stream.
func (ps *Stream) Collect() Result {
	ps.T.Helper()
	var res Result
	var out, errb strings.Builder
	for {
		f, err := ps.Next()
		if err != nil {
			res.Dropped = err
			break
		}
		if f.Flags&connectrpc.FlagEndStream != 0 {
			res.EndStream = f.Msg
			break
		}
		ev, _ := f.Msg["event"].(map[string]any)
		switch {
		case ev["data"] != nil:
			d := ev["data"].(map[string]any)
			for k, v := range d {
				b, err := base64.StdEncoding.DecodeString(v.(string))
				if err != nil {
					ps.T.Fatalf("bad base64 in %v", d)
				}
				if k == "stderr" {
					errb.Write(b)
				} else {
					out.Write(b)
				}
			}
		case ev["end"] != nil:
			res.End = ev["end"].(map[string]any)
		case ev["keepalive"] != nil:
			res.Keepalives++
		}
	}
	res.Stdout, res.Stderr = out.String(), errb.String()
	return res
}

// Run executes command in the sandbox and returns its complete result.
func (c *Client) Run(sb Sandbox, command string) Result {
	c.T.Helper()
	return c.StartProcess(sb, command, nil, nil).Collect()
}

// MustRun runs command and fails unless it exits 0.
func (c *Client) MustRun(sb Sandbox, command string) string {
	c.T.Helper()
	res := c.Run(sb, command)
	if res.End == nil || res.End["exitCode"] != nil || res.EndStream["error"] != nil {
		c.T.Fatalf("command %q failed: end=%v endStream=%v stdout=%q stderr=%q", command, res.End, res.EndStream, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

// Eventually polls cond every 50 ms for up to 30 s.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// HomeDir is where the shared layout keeps a sandbox's /home/user.
func HomeDir(m *envd.Machine) string { return filepath.Join(m.Dir(), "home") }

// TmpDir is where the shared layout keeps a sandbox's /tmp.
func TmpDir(m *envd.Machine) string { return filepath.Join(m.Dir(), "tmp") }

// Machine is the machine of a live sandbox.
func (c *Client) Machine(id string) *envd.Machine {
	c.T.Helper()
	m, ok := c.Srv.Machine(id)
	if !ok {
		c.T.Fatalf("no sandbox %s", id)
	}
	return m
}

// NewStream reads the Connect stream of resp, for a call made without OpenStream.
func NewStream(t *testing.T, resp *http.Response) *Stream {
	return &Stream{T: t, Resp: resp, r: bufio.NewReader(resp.Body)}
}

// NewClient is a client of srv, which the test closes itself (to restart an emulator on the
// same data dir, for example).
func NewClient(t *testing.T, srv *emulator.Server) *Client {
	return &Client{T: t, Srv: srv, HC: &http.Client{Timeout: 60 * time.Second}, Streams: &http.Client{}}
}

// Restartable starts an emulator on dataDir; restart closes it and starts a
// new one on the same data directory, to show what survives a restart.
func Restartable(t *testing.T, dataDir string) (c *Client, restart func() *Client) {
	t.Helper()
	srv, err := emulator.Start(emulator.Options{DataDir: dataDir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return NewClient(t, srv), func() *Client {
		t.Helper()
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		return Start(t, emulator.Options{DataDir: dataDir})
	}
}

// EdgeError is the body the sandbox edge answers for a sandbox it cannot reach.
type EdgeError struct {
	SandboxID string `json:"sandboxId"`
	Message   string `json:"message"`
	Code      int    `json:"code"`
}

// RunAs executes command as user (Basic auth, as the SDK's user option) and
// returns its complete result.
func (c *Client) RunAs(sb Sandbox, user, command string) Result {
	c.T.Helper()
	h := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"))}
	return c.StartProcess(sb, command, nil, h).Collect()
}

// MustRunAs runs command as user and fails unless it exits 0.
func (c *Client) MustRunAs(sb Sandbox, user, command string) string {
	c.T.Helper()
	res := c.RunAs(sb, user, command)
	if res.End == nil || res.End["exitCode"] != nil || res.EndStream["error"] != nil {
		c.T.Fatalf("command %q as %s failed: end=%v endStream=%v stdout=%q stderr=%q", command, user, res.End, res.EndStream, res.Stdout, res.Stderr)
	}
	return res.Stdout
}
