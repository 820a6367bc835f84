package portproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"
)

// The proxy's own answers, in E2B's words. Each is JSON (application/json; charset=utf-8) for a
// program and an HTML page (text/html; charset=utf-8) for a browser, with the same status, and
// carries Access-Control-Allow-Origin: * so that a page's script can read it.

// Answer is one of the proxy's own answers.
type Answer struct {
	status int
	body   map[string]any // the JSON body
	page   page
}

type page struct {
	Title, Lead, Detail string
	SandboxID, Host     string
	Status              string
}

// SandboxNotFound is E2B's answer for a sandbox that does not exist, was killed, or is paused and
// does not resume on traffic.
func SandboxNotFound(sandboxID, host string) Answer {
	return Answer{http.StatusBadGateway,
		map[string]any{"sandboxId": sandboxID, "message": "The sandbox was not found", "code": http.StatusBadGateway},
		page{Title: "Sandbox Not Found", Lead: "No running sandbox answers at this address.",
			Detail: "It may have reached its timeout, been killed, or be paused.", SandboxID: sandboxID, Host: host}}
}

// PortClosed is E2B's answer when nothing in the sandbox listens on the port.
func PortClosed(sandboxID, host string, port uint64) Answer {
	return Answer{http.StatusBadGateway,
		map[string]any{"sandboxId": sandboxID, "message": "The sandbox is running but port is not open", "port": port, "code": http.StatusBadGateway},
		page{Title: "Port Closed", Lead: fmt.Sprintf("The sandbox is running, but there is no service running on port %d.", port),
			Detail: "Start a server listening on that port inside the sandbox and reload.", SandboxID: sandboxID, Host: host}}
}

// TrafficTokenMissing is E2B's 403 for a request without the traffic access token of a sandbox
// created with network.allowPublicTraffic false.
func TrafficTokenMissing(sandboxID, host string) Answer {
	return Answer{http.StatusForbidden,
		map[string]any{"sandboxId": sandboxID, "message": fmt.Sprintf("Sandbox is secured with traffic access token. Token header '%s' is missing", strings.ToLower(HeaderTrafficToken)), "code": http.StatusForbidden},
		page{Title: "Missing Traffic Access Token", Lead: "This sandbox accepts only requests that carry its traffic access token.",
			Detail: fmt.Sprintf("Send it in the %s header.", strings.ToLower(HeaderTrafficToken)), SandboxID: sandboxID, Host: host}}
}

// TrafficTokenInvalid is E2B's 403 for a wrong traffic access token.
func TrafficTokenInvalid(sandboxID, host string) Answer {
	return Answer{http.StatusForbidden,
		map[string]any{"sandboxId": sandboxID, "message": fmt.Sprintf("Sandbox is secured with traffic access token. Provided token in header '%s' is invalid", strings.ToLower(HeaderTrafficToken)), "code": http.StatusForbidden},
		page{Title: "Invalid Traffic Access Token", Lead: "The traffic access token this request carries is not this sandbox's.",
			Detail: fmt.Sprintf("Check the %s header.", strings.ToLower(HeaderTrafficToken)), SandboxID: sandboxID, Host: host}}
}

// ResumeDenied is E2B's 403 when traffic would resume a paused sandbox but lacks the token the
// sandbox wants (its traffic access token, or envd's access token for envd's port).
func ResumeDenied(sandboxID, host string) Answer {
	return Answer{http.StatusForbidden,
		map[string]any{"sandboxId": sandboxID, "message": "This sandbox can't be resumed with the credentials provided. Check your access token and try again.", "code": http.StatusForbidden},
		page{Title: "Unable To Resume Sandbox", Lead: "The sandbox is paused, and this request may not resume it.",
			Detail: "Check your access token and try again.", SandboxID: sandboxID, Host: host}}
}

// TeamSandboxLimit is E2B's 429 when resuming the sandbox would pass the team's cap on running
// sandboxes.
func TeamSandboxLimit(sandboxID, host, message string) Answer {
	if message == "" {
		message = "Sandbox limit reached"
	}
	return Answer{http.StatusTooManyRequests,
		map[string]any{"sandboxId": sandboxID, "message": message, "code": http.StatusTooManyRequests},
		page{Title: "Sandbox Limit Reached", Lead: "The sandbox is paused, and resuming it would pass the team's limit of running sandboxes.",
			Detail: message, SandboxID: sandboxID, Host: host}}
}

// ReservedRouteAnswer is E2B's 404 for a route of envd that only its control plane reaches. It
// names the path, not the sandbox.
func ReservedRouteAnswer(host, path string) Answer {
	return Answer{http.StatusNotFound,
		map[string]any{"message": "This endpoint is reserved for the E2B control plane and is not reachable through the sandbox URL", "path": path, "code": http.StatusNotFound},
		page{Title: "Endpoint Not Available", Lead: "This endpoint is reserved for the E2B control plane and is not reachable through the sandbox URL.",
			Detail: "Path: " + path, Host: host}}
}

// Status is the answer's HTTP status.
func (a Answer) Status() int { return a.status }

// Write sends the answer: the HTML page to a browser's navigation, JSON to anything else.
func (a Answer) Write(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if wantsPage(r) {
		var buf bytes.Buffer
		p := a.page
		p.Status = fmt.Sprintf("%d %s", a.status, http.StatusText(a.status))
		if err := pageTemplate.Execute(&buf, p); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(a.status)
			_, _ = w.Write(bytes.TrimSpace(buf.Bytes()))
			return
		}
	}
	body, _ := json.Marshal(a.body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(a.status)
	_, _ = w.Write(body)
}

var browserUA = regexp.MustCompile(`(?i)mozilla|chrome|safari|firefox|edge|opera|msie`)

// wantsPage is E2B's choice between its page and JSON: a browser's User-Agent gets the page,
// unless the browser says the request is a script's (a fetch, an XHR, a websocket) or asks
// for JSON; a top-level navigation always gets the page.
func wantsPage(r *http.Request) bool {
	if !browserUA.MatchString(r.UserAgent()) {
		return false
	}
	switch mode := r.Header.Get("Sec-Fetch-Mode"); {
	case mode == "navigate":
		return true
	case mode != "":
		return false
	}
	if strings.EqualFold(r.Header.Get("X-Requested-With"), "XMLHttpRequest") {
		return false
	}
	accept := r.Header.Get("Accept")
	return !strings.Contains(accept, "application/json") || strings.Contains(accept, "text/html")
}

var pageTemplate = template.Must(template.New("page").Parse(`
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; padding: 3rem 1.5rem; background: #fafafa; color: #222; }
main { max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
.status { color: #888; margin: 0 0 1.5rem; }
code { background: #eee; padding: .1rem .3rem; border-radius: 3px; }
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p class="status">{{.Status}}</p>
<p>{{.Lead}}</p>
<p>{{.Detail}}</p>
{{if .SandboxID}}<p>Sandbox: <code>{{.SandboxID}}</code></p>{{end}}
{{if .Host}}<p>Host: <code>{{.Host}}</code></p>{{end}}
</main>
</body>
</html>
`))
