package emulator_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.110 Safari/537.3"

// freePort is a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

// viaHost sends a request to the sandbox URL with the host name E2B's SDKs give a sandbox port
// (as sandbox_host() computes it), the way a client whose DNS points that name at the proxy does.
func viaHost(t *testing.T, c *emulatortest.Client, method, sandboxID string, port int, path string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, c.Srv.SandboxURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = fmt.Sprintf("%d-%s.e2b.local", port, sandboxID)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s on port %d: %v", method, path, port, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// startWebServer runs python3's web server in the sandbox on port, serving a page that names
// the sandbox, and waits until it answers through the proxy.
func startWebServer(t *testing.T, c *emulatortest.Client, sb emulatortest.Sandbox, port int) {
	t.Helper()
	c.MustRun(sb, "mkdir -p ~/site && echo hello-from-"+sb.SandboxID+" > ~/site/index.html")
	c.StartProcess(sb, fmt.Sprintf("cd ~/site && exec python3 -m http.server %d --bind 127.0.0.1", port), nil, nil)
	emulatortest.Eventually(t, "web server up", func() bool {
		resp, _ := viaHost(t, c, "GET", sb.SandboxID, port, "/", nil)
		return resp.StatusCode == http.StatusOK
	})
}

// Item: every port of a sandbox answers through the sandbox URL, by host name and by E2B's
// routing headers, as E2B's proxy forwards it.
func TestSandboxProxyForwardsEveryPort(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	port := freePort(t)
	startWebServer(t, c, sb, port)

	resp, data := viaHost(t, c, "GET", sb.SandboxID, port, "/index.html", nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(data)) != "hello-from-"+sb.SandboxID {
		t.Fatalf("by host name: %d %q", resp.StatusCode, data)
	}
	st, data, _ := c.Request("GET", c.Srv.SandboxURL()+"/index.html", nil, map[string]string{
		emulatortest.HeaderSandboxID: sb.SandboxID, emulatortest.HeaderSandboxPort: fmt.Sprint(port),
	})
	if st != http.StatusOK || strings.TrimSpace(string(data)) != "hello-from-"+sb.SandboxID {
		t.Fatalf("by headers: %d %q", st, data)
	}
}

// edgeAnswer is the JSON of the proxy's own answers.
type edgeAnswer struct {
	SandboxID string `json:"sandboxId"`
	Message   string `json:"message"`
	Port      *int   `json:"port"`
	Code      int    `json:"code"`
	Path      string `json:"path"`
}

func decodeEdge(t *testing.T, resp *http.Response, data []byte, status int) edgeAnswer {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q, want E2B's application/json; charset=utf-8", ct)
	}
	var a edgeAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return a
}

func wantPage(t *testing.T, resp *http.Response, data []byte, status int, contains ...string) {
	t.Helper()
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("browser: %d %q, want %d text/html; charset=utf-8", resp.StatusCode, resp.Header.Get("Content-Type"), status)
	}
	page := string(data)
	if !strings.HasPrefix(page, "<html") || !strings.HasSuffix(page, "</html>") {
		t.Fatalf("not a whole page: %q", page)
	}
	for _, s := range contains {
		if !strings.Contains(page, s) {
			t.Fatalf("page lacks %q: %s", s, page)
		}
	}
}

// Items: a port nothing listens on answers E2B's 502 "port is not open" with the port as a
// number, as JSON for a program and as a page for a browser; a sandbox that does not exist
// answers "not found" on every port, before anything else.
func TestSandboxProxyErrorAnswers(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	port := freePort(t)

	resp, data := viaHost(t, c, "GET", sb.SandboxID, port, "/", nil)
	a := decodeEdge(t, resp, data, http.StatusBadGateway)
	if a.Message != "The sandbox is running but port is not open" || a.SandboxID != sb.SandboxID || a.Port == nil || *a.Port != port || a.Code != 502 {
		t.Fatalf("port closed: %s", data)
	}
	if !strings.Contains(string(data), fmt.Sprintf(`"port":%d`, port)) {
		t.Fatalf("port is not a number: %s", data)
	}
	resp, data = viaHost(t, c, "GET", sb.SandboxID, port, "/", map[string]string{"User-Agent": browserUA})
	wantPage(t, resp, data, http.StatusBadGateway, "no service running on port", sb.SandboxID, fmt.Sprint(port))
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("no CORS header on the proxy's answer")
	}
	// A browser's script (fetch) gets JSON, as from E2B.
	resp, data = viaHost(t, c, "GET", sb.SandboxID, port, "/", map[string]string{"User-Agent": browserUA, "Sec-Fetch-Mode": "cors"})
	decodeEdge(t, resp, data, http.StatusBadGateway)

	for _, p := range []int{port, 49983} {
		resp, data = viaHost(t, c, "GET", "inosuchsandbox00000000", p, "/health", nil)
		if a := decodeEdge(t, resp, data, http.StatusBadGateway); a.Message != "The sandbox was not found" || a.SandboxID != "inosuchsandbox00000000" {
			t.Fatalf("unknown sandbox on port %d: %s", p, data)
		}
	}
	resp, data = viaHost(t, c, "GET", "inosuchsandbox00000000", port, "/", map[string]string{"User-Agent": browserUA})
	wantPage(t, resp, data, http.StatusBadGateway, "Sandbox Not Found", "inosuchsandbox00000000")
}

// echoScript is a web server that answers each request with the headers it got, as JSON.
const echoScript = `import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
`

// startEchoServer runs echoScript in the sandbox on a free port and waits until it listens.
func startEchoServer(t *testing.T, c *emulatortest.Client, sb emulatortest.Sandbox, headers map[string]string) int {
	t.Helper()
	port := freePort(t)
	st, data := c.Upload(sb, "/home/user/echo.py", strings.NewReader(echoScript), nil)
	emulatortest.WantStatus(t, "upload echo.py", st, data, http.StatusOK)
	c.StartProcess(sb, fmt.Sprintf("exec python3 /home/user/echo.py %d", port), nil, nil)
	emulatortest.Eventually(t, "echo server up", func() bool {
		resp, _ := viaHost(t, c, "GET", sb.SandboxID, port, "/", headers)
		return resp.StatusCode == http.StatusOK
	})
	return port
}

// A port the host (or another sandbox) listens on is not the sandbox's: closed through its URL.
func TestSandboxProxyOnlyTheSandboxsPorts(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "the host's") }))
	t.Cleanup(host.Close)
	hostPort := host.Listener.Addr().(*net.TCPAddr).Port
	a, b := c.Create(map[string]any{}), c.Create(map[string]any{})
	port := freePort(t)
	startWebServer(t, c, a, port)
	for _, tc := range []struct {
		sandbox string
		port    int
	}{{a.SandboxID, hostPort}, {b.SandboxID, port}} {
		resp, data := viaHost(t, c, "GET", tc.sandbox, tc.port, "/", nil)
		if e := decodeEdge(t, resp, data, http.StatusBadGateway); e.Message != "The sandbox is running but port is not open" {
			t.Fatalf("port %d through %s: %s", tc.port, tc.sandbox, data)
		}
	}
}

// Item: network.allowPublicTraffic false wants the traffic access token on every port but
// envd's (403 with E2B's messages when it is missing or wrong); maskRequestHost replaces the
// Host the server sees, ${PORT} filled in; the API key never reaches the sandbox.
func TestSandboxProxyTrafficTokenAndMaskedHost(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "secure": true,
		"network": map[string]any{"allowPublicTraffic": false, "maskRequestHost": "localhost:${PORT}"}})
	emulatortest.WantStatus(t, "create private", st, data, http.StatusCreated)
	var created struct {
		SandboxID          string `json:"sandboxID"`
		EnvdAccessToken    string `json:"envdAccessToken"`
		TrafficAccessToken string `json:"trafficAccessToken"`
	}
	if err := json.Unmarshal(data, &created); err != nil || created.TrafficAccessToken == "" {
		t.Fatalf("create: %s %v", data, err)
	}
	id := created.SandboxID
	sb := emulatortest.Sandbox{SandboxID: id, EnvdAccessToken: created.EnvdAccessToken}
	port := startEchoServer(t, c, sb, map[string]string{"e2b-traffic-access-token": created.TrafficAccessToken})

	resp, data := viaHost(t, c, "GET", id, port, "/", nil)
	if a := decodeEdge(t, resp, data, http.StatusForbidden); a.Message != "Sandbox is secured with traffic access token. Token header 'e2b-traffic-access-token' is missing" || a.SandboxID != id {
		t.Fatalf("missing token: %s", data)
	}
	resp, data = viaHost(t, c, "GET", id, port, "/", map[string]string{"e2b-traffic-access-token": "abcd"})
	if a := decodeEdge(t, resp, data, http.StatusForbidden); a.Message != "Sandbox is secured with traffic access token. Provided token in header 'e2b-traffic-access-token' is invalid" {
		t.Fatalf("wrong token: %s", data)
	}
	resp, data = viaHost(t, c, "GET", id, port, "/", map[string]string{"User-Agent": browserUA})
	wantPage(t, resp, data, http.StatusForbidden, "Missing Traffic Access Token", id)
	resp, data = viaHost(t, c, "GET", id, port, "/", map[string]string{"User-Agent": browserUA, "e2b-traffic-access-token": "abcd"})
	wantPage(t, resp, data, http.StatusForbidden, "Invalid Traffic Access Token", id)

	resp, data = viaHost(t, c, "GET", id, port, "/x", map[string]string{
		"e2b-traffic-access-token": created.TrafficAccessToken, "X-API-Key": c.Srv.APIKey(),
	})
	var seen map[string]string
	if err := json.Unmarshal(data, &seen); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("with the token: %d %s", resp.StatusCode, data)
	}
	if want := fmt.Sprintf("localhost:%d", port); seen["host"] != want {
		t.Fatalf("the sandbox's server saw Host %q, want the masked %q", seen["host"], want)
	}
	if _, leaked := seen["x-api-key"]; leaked {
		t.Fatal("the API key reached the sandbox")
	}
	// envd's port wants no traffic token: envd's own access token guards it.
	resp, data = viaHost(t, c, "GET", id, 49983, "/health", map[string]string{"X-Access-Token": created.EnvdAccessToken})
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("envd health without the traffic token: %d %s", resp.StatusCode, data)
	}
}

func pause(t *testing.T, c *emulatortest.Client, id string, body map[string]any) {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	st, data, _ := c.API("POST", "/sandboxes/"+id+"/pause", body)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
}

// Item: a request resumes a paused sandbox with autoResume that kept its memory, and its
// server answers; without autoResume, or after a filesystem-only pause, the answer is E2B's
// "not found" and the sandbox stays paused.
func TestSandboxProxyAutoResume(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	port := freePort(t)
	sb := c.Create(map[string]any{"autoPause": true, "autoResume": map[string]any{"enabled": true}})
	startWebServer(t, c, sb, port)
	pause(t, c, sb.SandboxID, nil)
	resp, data := viaHost(t, c, "GET", sb.SandboxID, port, "/index.html", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), "hello-from-") {
		t.Fatalf("request to a paused autoResume sandbox: %d %s", resp.StatusCode, data)
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Running {
		t.Fatalf("state %s after the request, want running", d.State)
	}

	for name, body := range map[string]map[string]any{
		"no autoResume":   {},
		"filesystem only": {"autoPause": true, "autoResume": map[string]any{"enabled": true}},
	} {
		other := c.Create(body)
		var pauseBody map[string]any
		if name == "filesystem only" {
			pauseBody = map[string]any{"memory": false}
		}
		pause(t, c, other.SandboxID, pauseBody)
		resp, data := viaHost(t, c, "GET", other.SandboxID, freePort(t), "/", nil)
		if a := decodeEdge(t, resp, data, http.StatusBadGateway); a.Message != "The sandbox was not found" {
			t.Fatalf("%s: %s", name, data)
		}
		if d := c.Detail(other.SandboxID); d.State != sandboxes.Paused {
			t.Fatalf("%s: state %s, want paused", name, d.State)
		}
	}
}

// Item: a paused secure sandbox is never resumed by traffic without the token it wants: envd's
// access token on envd's port, the traffic access token on the others (E2B: 403, it stays
// paused); with the token it resumes.
func TestSandboxProxySecureAutoResumeNeedsToken(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "secure": true,
		"autoPause": true, "autoResume": map[string]any{"enabled": true}, "network": map[string]any{"allowPublicTraffic": false}})
	emulatortest.WantStatus(t, "create", st, data, http.StatusCreated)
	var created struct {
		SandboxID          string `json:"sandboxID"`
		EnvdAccessToken    string `json:"envdAccessToken"`
		TrafficAccessToken string `json:"trafficAccessToken"`
	}
	_ = json.Unmarshal(data, &created)
	id := created.SandboxID
	port := startEchoServer(t, c, emulatortest.Sandbox{SandboxID: id, EnvdAccessToken: created.EnvdAccessToken},
		map[string]string{"e2b-traffic-access-token": created.TrafficAccessToken})
	pause(t, c, id, nil)

	for _, try := range []struct {
		port    int
		headers map[string]string
	}{
		{49983, nil},
		{49983, map[string]string{"X-Access-Token": "wrong"}},
		{port, nil},
		{port, map[string]string{"e2b-traffic-access-token": "wrong"}},
	} {
		resp, data := viaHost(t, c, "GET", id, try.port, "/health", try.headers)
		if a := decodeEdge(t, resp, data, http.StatusForbidden); a.Message != "This sandbox can't be resumed with the credentials provided. Check your access token and try again." {
			t.Fatalf("port %d %v: %s", try.port, try.headers, data)
		}
		if d := c.Detail(id); d.State != sandboxes.Paused {
			t.Fatalf("port %d %v resumed the sandbox without its token", try.port, try.headers)
		}
	}
	resp, data := viaHost(t, c, "GET", id, 49983, "/health", map[string]string{"X-Access-Token": created.EnvdAccessToken})
	if resp.StatusCode != http.StatusNoContent || c.Detail(id).State != sandboxes.Running {
		t.Fatalf("with envd's token: %d %s", resp.StatusCode, data)
	}
	pause(t, c, id, nil)
	resp, data = viaHost(t, c, "GET", id, port, "/", map[string]string{"e2b-traffic-access-token": created.TrafficAccessToken})
	if resp.StatusCode != http.StatusOK || c.Detail(id).State != sandboxes.Running {
		t.Fatalf("with the traffic token: %d %s", resp.StatusCode, data)
	}
}

// Item: an auto-resume gives a sandbox created without a timeout E2B's minimum of 300 s, not
// the create's default of 15 s.
func TestSandboxProxyAutoResumeTimeout(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "autoPause": true, "autoResume": map[string]any{"enabled": true}})
	emulatortest.WantStatus(t, "create without timeout", st, data, http.StatusCreated)
	sb := emulatortest.Decode[emulatortest.Sandbox](t, data)
	pause(t, c, sb.SandboxID, nil)
	resp, data := viaHost(t, c, "GET", sb.SandboxID, 49983, "/health", nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("auto-resume: %d %s", resp.StatusCode, data)
	}
	d := c.Detail(sb.SandboxID)
	if got := d.EndAt.Sub(d.StartedAt); got < 299*time.Second || got > 301*time.Second {
		t.Fatalf("auto-resumed for %s, want E2B's 300 s", got)
	}
}

// Item: envd's routes for E2B's control plane (/init and the like) answer 404 through the
// sandbox URL, whatever the method and however the path is spelled, not envd's 401.
func TestSandboxProxyReservedRoutes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "secure": true})
	emulatortest.WantStatus(t, "create", st, data, http.StatusCreated)
	sb := emulatortest.Decode[emulatortest.Sandbox](t, data)
	for _, p := range []string{"/init", "/init/", "/files/../init", "/upgrade", "/freeze"} {
		for _, m := range []string{"POST", "GET"} {
			resp, data := viaHost(t, c, m, sb.SandboxID, 49983, p, nil)
			a := decodeEdge(t, resp, data, http.StatusNotFound)
			if a.Message != "This endpoint is reserved for the E2B control plane and is not reachable through the sandbox URL" || a.SandboxID != "" {
				t.Fatalf("%s %s: %s", m, p, data)
			}
		}
	}
	st, data, _ = c.Request("POST", c.Srv.SandboxURL()+"/init", map[string]any{}, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "POST /init by headers", st, data, http.StatusNotFound)
}

// Item: the base template has `python`, Python 3, as E2B's base has (E2B's own proxy tests start
// `python -m http.server`).
func TestBaseTemplateHasPython(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		if _, err := os.Stat("/usr/local/bin/python3"); err != nil {
			t.Skip("the host has no python3 in /usr: sandboxes read the host's /usr, so they have no python either")
		}
	}
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	if c.Machine(sb.SandboxID).Root() == nil {
		t.Skip("no private root filesystems on this host (see the emulator's start-up log): the shared layout has only the host's own commands")
	}
	if out := c.MustRun(sb, `python -c 'import sys; print(sys.version_info[0])'`); strings.TrimSpace(out) != "3" {
		t.Fatalf("python is not Python 3: %q", out)
	}
}

// upgradeEchoScript accepts one upgrade (as a websocket handshake is one) and then echoes bytes.
const upgradeEchoScript = `import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1])))
srv.listen()
while True:
    conn, _ = srv.accept()
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(1024)
        if not chunk:
            break
        head += chunk
    if b"upgrade: echo" not in head.lower():
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nup")
        conn.close()
        continue
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
    while True:
        data = conn.recv(1024)
        if not data:
            break
        conn.sendall(data)
    conn.close()
`

// Item: an upgraded connection (a websocket's) passes through the proxy both ways.
func TestSandboxProxyUpgrade(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	port := freePort(t)
	st, data := c.Upload(sb, "/home/user/upgrade.py", strings.NewReader(upgradeEchoScript), nil)
	emulatortest.WantStatus(t, "upload upgrade.py", st, data, http.StatusOK)
	c.StartProcess(sb, fmt.Sprintf("exec python3 /home/user/upgrade.py %d", port), nil, nil)
	emulatortest.Eventually(t, "server up", func() bool {
		resp, _ := viaHost(t, c, "GET", sb.SandboxID, port, "/", nil)
		return resp.StatusCode == http.StatusOK
	})

	conn, err := net.Dial("tcp", strings.TrimPrefix(c.Srv.SandboxURL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %d-%s.e2b.local\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", port, sb.SandboxID)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	for _, msg := range []string{"ping", "pong"} {
		if _, err := io.WriteString(conn, msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(br, got); err != nil || string(got) != msg {
			t.Fatalf("echo of %q: %q %v", msg, got, err)
		}
	}
}

// A resume by traffic counts against the team's cap on running sandboxes, as a connect does:
// at the cap, E2B's 429, and the sandbox stays paused.
func TestSandboxProxyAutoResumeAtTheCap(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{Limits: emulator.Limits{MaxConcurrentSandboxes: 1}})
	sb := c.Create(map[string]any{"autoPause": true, "autoResume": map[string]any{"enabled": true}})
	pause(t, c, sb.SandboxID, nil)
	c.Create(map[string]any{})
	resp, data := viaHost(t, c, "GET", sb.SandboxID, 49983, "/health", nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("resume at the cap: %d %s", resp.StatusCode, data)
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Paused {
		t.Fatalf("state %s at the cap, want paused", d.State)
	}
}
