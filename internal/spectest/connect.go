package spectest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The Connect RPC paths are not in envd.yaml; these checks follow the
// Connect protocol (JSON codec) and envd's .proto messages.

var connectPath = regexp.MustCompile(`^/(process\.Process|filesystem\.Filesystem)/([A-Za-z]+)$`)

var connectTimeoutMs = regexp.MustCompile(`^[0-9]{1,10}$`)

func isConnectPath(p string) bool { return connectPath.MatchString(p) }

// procedures lists envd's RPCs; true = server streaming.
var procedures = map[string]bool{
	"process.Process/Start": true, "process.Process/Connect": true, "process.Process/List": false,
	"process.Process/SendInput": false, "process.Process/SendSignal": false, "process.Process/CloseStdin": false,
	"process.Process/Update":     false,
	"filesystem.Filesystem/Stat": false, "filesystem.Filesystem/MakeDir": false, "filesystem.Filesystem/Move": false,
	"filesystem.Filesystem/ListDir": false, "filesystem.Filesystem/Remove": false, "filesystem.Filesystem/WatchDir": true,
	"filesystem.Filesystem/CreateWatcher": false, "filesystem.Filesystem/GetWatcherEvents": false,
	"filesystem.Filesystem/RemoveWatcher": false,
}

// connectCodes maps Connect error codes to the HTTP status of a unary error.
var connectCodes = map[string]int{
	"canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504, "not_found": 404,
	"already_exists": 409, "permission_denied": 403, "resource_exhausted": 429, "failed_precondition": 400,
	"aborted": 409, "out_of_range": 400, "unimplemented": 501, "internal": 500, "unavailable": 503,
	"data_loss": 500, "unauthenticated": 401,
}

const maxEnvelope = 32 << 20

func (v *Validator) connectRoundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	v.count("connect")
	proc := strings.TrimPrefix(req.URL.Path, "/")
	streaming, known := procedures[proc]
	if !known {
		v.failf("%s: unknown envd procedure", label(req))
	}
	v.checkEnvdHeaders(req)
	if req.Method != http.MethodPost {
		v.failf("%s: Connect calls must be POST", label(req))
	}
	if got := req.Header.Get("Connect-Protocol-Version"); got != "1" {
		v.failf("%s: Connect-Protocol-Version is %q, want 1", label(req), got)
	}
	if ms := req.Header.Get("Connect-Timeout-Ms"); ms != "" && !connectTimeoutMs.MatchString(ms) {
		v.failf("%s: bad Connect-Timeout-Ms %q", label(req), ms)
	}
	wantCT := "application/json"
	if streaming {
		wantCT = "application/connect+json"
	}
	if ct := mediaType(req.Header.Get("Content-Type")); ct != wantCT {
		v.failf("%s: request Content-Type %q, want %q", label(req), ct, wantCT)
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxValidatedBody))
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req = cloneWithBody(req, b)
	}
	msg := body
	if streaming {
		msg = v.singleEnvelope(req, body)
	}
	if msg != nil {
		v.checkRequestMessage(req, proc, msg)
	}

	resp, err := next.RoundTrip(req)
	if err != nil || injectedFault(resp) {
		return resp, err
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusOK && streaming {
		if ct != "application/connect+json" {
			v.failf("%s: stream answered with Content-Type %q", label(req), ct)
			return resp, nil
		}
		resp.Body = &streamChecker{v: v, label: label(req), proc: proc, body: resp.Body}
		return resp, nil
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, maxValidatedBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if rerr != nil {
		v.failf("%s: reading the response: %v", label(req), rerr)
		return resp, nil
	}
	if resp.StatusCode == http.StatusOK {
		if ct != "application/json" {
			v.failf("%s: unary answer Content-Type %q, want application/json", label(req), ct)
		}
		v.checkResponseMessage(label(req), proc, b)
		return resp, nil
	}
	v.checkErrorAnswer(req, resp.StatusCode, ct, b)
	return resp, nil
}

// checkErrorAnswer accepts a Connect error ({"code":"not_found"} with the
// matching status) or an edge/envd plain error ({"code":502,...}).
func (v *Validator) checkErrorAnswer(req *http.Request, status int, ct string, b []byte) {
	if ct != "application/json" {
		v.failf("%s: %d error with Content-Type %q", label(req), status, ct)
		return
	}
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		v.failf("%s: %d error body is not JSON: %v", label(req), status, err)
		return
	}
	var code string
	if json.Unmarshal(e.Code, &code) == nil {
		want, ok := connectCodes[code]
		if !ok {
			v.failf("%s: unknown Connect code %q", label(req), code)
		} else if want != status {
			v.failf("%s: Connect code %q sent with HTTP %d, want %d", label(req), code, status, want)
		}
		return
	}
	var n int
	if json.Unmarshal(e.Code, &n) != nil || n != status || e.Message == nil {
		v.failf("%s: %d error body %s is neither a Connect error nor {code, message}", label(req), status, truncate(b))
	}
}

func (v *Validator) singleEnvelope(req *http.Request, body []byte) []byte {
	if len(body) < 5 {
		v.failf("%s: stream request body of %d bytes holds no envelope", label(req), len(body))
		return nil
	}
	n := binary.BigEndian.Uint32(body[1:5])
	if body[0] != 0 {
		v.failf("%s: stream request envelope flags %#x, want 0", label(req), body[0])
	}
	if int(n) != len(body)-5 {
		v.failf("%s: stream request must be exactly one envelope (length %d, body %d)", label(req), n, len(body)-5)
		return nil
	}
	return body[5:]
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// streamChecker parses the envelopes while the caller reads them, without
// keeping the stream in memory.
type streamChecker struct {
	v     *Validator
	label string
	proc  string
	body  io.ReadCloser

	mu      sync.Mutex
	hdr     []byte
	payload []byte
	need    int
	frames  int
	ended   bool
	closed  bool
}

func (s *streamChecker) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.feed(p[:n])
	if errors.Is(err, io.EOF) && !s.closed {
		switch {
		case len(s.hdr) > 0 || s.need > 0:
			s.v.failf("%s: stream ended inside an envelope", s.label)
		case !s.ended:
			s.v.failf("%s: stream closed cleanly without the end-stream envelope", s.label)
		}
	}
	return n, err
}

func (s *streamChecker) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return s.body.Close()
}

func (s *streamChecker) feed(b []byte) {
	for len(b) > 0 {
		if s.need == 0 && len(s.hdr) < 5 {
			k := min(5-len(s.hdr), len(b))
			s.hdr = append(s.hdr, b[:k]...)
			b = b[k:]
			if len(s.hdr) < 5 {
				return
			}
			n := binary.BigEndian.Uint32(s.hdr[1:5])
			if n > maxEnvelope {
				s.v.failf("%s: envelope of %d bytes", s.label, n)
			}
			s.need = int(n)
			s.payload = s.payload[:0]
			if s.need == 0 {
				s.frame()
			}
			continue
		}
		k := min(s.need, len(b))
		s.payload = append(s.payload, b[:k]...)
		s.need -= k
		b = b[k:]
		if s.need == 0 {
			s.frame()
		}
	}
}

func (s *streamChecker) frame() {
	flags := s.hdr[0]
	s.hdr = s.hdr[:0]
	s.frames++
	if s.ended {
		s.v.failf("%s: envelope after end-stream", s.label)
	}
	switch flags {
	case 0x00:
		s.v.checkStreamMessage(s.label, s.proc, s.frames, s.payload)
	case 0x02:
		s.ended = true
		s.v.checkEndStream(s.label, s.payload)
	default:
		s.v.failf("%s: envelope flags %#x (compression was not negotiated)", s.label, flags)
	}
}

func (v *Validator) checkEndStream(lbl string, payload []byte) {
	var end struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Metadata map[string][]string `json:"metadata"`
	}
	if err := strictUnmarshal(payload, &end); err != nil {
		v.failf("%s: end-stream payload %s: %v", lbl, truncate(payload), err)
		return
	}
	if end.Error != nil {
		if _, ok := connectCodes[end.Error.Code]; !ok {
			v.failf("%s: end-stream error code %q is not a Connect code", lbl, end.Error.Code)
		}
	}
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// checkStreamMessage validates one process or watch event.
func (v *Validator) checkStreamMessage(lbl, proc string, index int, payload []byte) {
	if !strings.HasPrefix(proc, "process.") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(payload, &m); err != nil {
			v.failf("%s: stream message is not a JSON object: %v", lbl, err)
		}
		return
	}
	var m struct {
		Event map[string]json.RawMessage `json:"event"`
	}
	if err := strictUnmarshal(payload, &m); err != nil || len(m.Event) != 1 {
		v.failf("%s: message %d %s is not {\"event\": {<one member>}}", lbl, index, truncate(payload))
		return
	}
	for kind, raw := range m.Event {
		if index == 1 && kind != "start" {
			v.failf("%s: first message is %q, want start", lbl, kind)
		}
		switch kind {
		case "start":
			var s struct {
				PID uint32 `json:"pid"`
			}
			if err := strictUnmarshal(raw, &s); err != nil || s.PID == 0 {
				v.failf("%s: bad start event %s", lbl, raw)
			}
		case "data":
			var d map[string]string
			if err := json.Unmarshal(raw, &d); err != nil || len(d) != 1 {
				v.failf("%s: bad data event %s", lbl, truncate(raw))
			}
			for k, b64 := range d {
				if k != "stdout" && k != "stderr" && k != "pty" {
					v.failf("%s: data event member %q", lbl, k)
				}
				if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
					v.failf("%s: data event is not standard base64: %v", lbl, err)
				}
			}
		case "end":
			var e struct {
				ExitCode *int32  `json:"exitCode"`
				Exited   *bool   `json:"exited"`
				Status   *string `json:"status"`
				Error    *string `json:"error"`
			}
			if err := strictUnmarshal(raw, &e); err != nil {
				v.failf("%s: bad end event %s: %v", lbl, raw, err)
			}
		case "keepalive":
			if string(raw) != "{}" {
				v.failf("%s: keepalive %s, want {}", lbl, raw)
			}
		default:
			v.failf("%s: unknown event %q", lbl, kind)
		}
	}
}

// checkRequestMessage validates the request message of procedures whose
// shape the client must get right.
func (v *Validator) checkRequestMessage(req *http.Request, proc string, msg []byte) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		v.failf("%s: request message is not a JSON object: %v", label(req), err)
		return
	}
	switch proc {
	case "process.Process/SendSignal":
		var s string
		if json.Unmarshal(m["signal"], &s) != nil || (s != "SIGNAL_SIGKILL" && s != "SIGNAL_SIGTERM") {
			v.failf("%s: signal %s is not an enum name", label(req), m["signal"])
		}
	case "process.Process/SendInput":
		// ProcessInput is a oneof: stdin, or pty for a process on a terminal.
		var in struct {
			Stdin *string `json:"stdin"`
			Pty   *string `json:"pty"`
		}
		switch {
		case json.Unmarshal(m["input"], &in) != nil || (in.Stdin == nil) == (in.Pty == nil):
			v.failf("%s: input %s has not exactly one of stdin and pty", label(req), m["input"])
		case in.Stdin != nil && !isBase64(*in.Stdin):
			v.failf("%s: stdin is not standard base64", label(req))
		case in.Pty != nil && !isBase64(*in.Pty):
			v.failf("%s: pty is not standard base64", label(req))
		}
	case "process.Process/Start":
		var p struct {
			Cmd string `json:"cmd"`
		}
		if json.Unmarshal(m["process"], &p) != nil || p.Cmd == "" {
			v.failf("%s: start request without process.cmd", label(req))
		}
	}
	for k := range m {
		if strings.Contains(k, "_") {
			v.failf("%s: field %q is not lowerCamelCase", label(req), k)
		}
	}
}

// checkResponseMessage validates unary answers that carry entries.
func (v *Validator) checkResponseMessage(lbl, proc string, b []byte) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		v.failf("%s: answer is not a JSON object: %v", lbl, err)
		return
	}
	switch proc {
	case "filesystem.Filesystem/Stat", "filesystem.Filesystem/MakeDir", "filesystem.Filesystem/Move":
		v.checkEntry(lbl, m["entry"])
	case "filesystem.Filesystem/ListDir":
		var entries []json.RawMessage
		if err := json.Unmarshal(m["entries"], &entries); err != nil && m["entries"] != nil {
			v.failf("%s: entries is not a list", lbl)
		}
		for _, e := range entries {
			v.checkEntry(lbl, e)
		}
	}
}

func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

func (v *Validator) checkEntry(lbl string, raw json.RawMessage) {
	var e struct {
		Name          string            `json:"name"`
		Type          string            `json:"type"`
		Path          string            `json:"path"`
		Size          *string           `json:"size"`
		Mode          uint32            `json:"mode"`
		Permissions   string            `json:"permissions"`
		Owner         string            `json:"owner"`
		Group         string            `json:"group"`
		ModifiedTime  *string           `json:"modifiedTime"`
		SymlinkTarget *string           `json:"symlinkTarget"`
		Metadata      map[string]string `json:"metadata"`
	}
	if err := strictUnmarshal(raw, &e); err != nil {
		v.failf("%s: entry %s: %v (int64 size must be a string)", lbl, truncate(raw), err)
		return
	}
	switch e.Type {
	case "FILE_TYPE_FILE", "FILE_TYPE_DIRECTORY", "FILE_TYPE_SYMLINK", "":
	default:
		v.failf("%s: entry type %q is not an enum name", lbl, e.Type)
	}
	if e.Path == "" || e.Name == "" && e.Path != "/" {
		v.failf("%s: entry without path/name: %s", lbl, truncate(raw))
	}
	if e.ModifiedTime != nil {
		if _, err := time.Parse(time.RFC3339Nano, *e.ModifiedTime); err != nil {
			v.failf("%s: modifiedTime %q is not RFC 3339", lbl, *e.ModifiedTime)
		}
	}
}
