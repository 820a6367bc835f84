package e2b

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTemplates is a small stateful template control plane: it keeps
// uploaded archives by hash, records started builds and plays a scripted
// log for each build, a few entries per status poll.
type fakeTemplates struct {
	t      testing.TB
	mu     sync.Mutex
	srv    *httptest.Server
	hits   map[string]int
	seq    int
	byName map[string]string             // name -> template ID
	files  map[string][]string           // files hash -> archive entry names
	starts map[string]TemplateBuildStart // build ID -> start body
	polls  map[string]int                // build ID -> status polls
	// script: the log of every build, released perPoll entries per poll;
	// the build ends after the whole log was handed out.
	script  []BuildLogEntry
	perPoll int
	fail    *BuildStatusReason // when set, builds end in error
	// faults, consumed in order per route key.
	faults map[string][]func(w http.ResponseWriter, r *http.Request) bool
	// uploadKeys records the X-API-Key header of every upload.
	uploadKeys []string
}

func newFakeTemplates(t testing.TB) *fakeTemplates {
	f := &fakeTemplates{
		t: t, hits: map[string]int{}, byName: map[string]string{}, files: map[string][]string{},
		starts: map[string]TemplateBuildStart{}, polls: map[string]int{},
		perPoll: 2, faults: map[string][]func(http.ResponseWriter, *http.Request) bool{},
	}
	for i := 0; i < 5; i++ {
		f.script = append(f.script, BuildLogEntry{Timestamp: time.Unix(1700000000+int64(i), 0).UTC(), Level: "info", Message: fmt.Sprintf("line %d", i), Step: strconv.Itoa(i/2 + 1)})
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeTemplates) client(t *testing.T) *Client {
	return newTestClient(t, fastConfig(f.srv.URL))
}

// fault queues a one-shot behaviour for a route ("GET status" etc.); it
// returns true when it answered.
func (f *fakeTemplates) fault(route string, fn func(w http.ResponseWriter, r *http.Request) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[route] = append(f.faults[route], fn)
}

// answerError queues a one-shot answer for route: E2B's error body with status.
func (f *fakeTemplates) answerError(route string, status int, message string) {
	f.fault(route, func(w http.ResponseWriter, _ *http.Request) bool {
		writeJSON(w, status, fmt.Sprintf(`{"code":%d,"message":%q}`, status, message))
		return true
	})
}

// startThen queues a one-shot start that takes effect and then answers with
// answer: the start E2B made whose answer the client does not get.
func (f *fakeTemplates) startThen(answer func(w http.ResponseWriter)) {
	f.fault("POST start", func(w http.ResponseWriter, r *http.Request) bool {
		f.start(httptestDiscard{}, r)
		answer(w)
		return true
	})
}

func (f *fakeTemplates) count(route string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[route]
}

func (f *fakeTemplates) serve(w http.ResponseWriter, r *http.Request) {
	route := f.route(r)
	f.mu.Lock()
	f.hits[route]++
	if q := f.faults[route]; len(q) > 0 {
		fn := q[0]
		f.faults[route] = q[1:]
		f.mu.Unlock()
		if fn(w, r) {
			return
		}
	} else {
		f.mu.Unlock()
	}
	if route != "PUT upload" && r.Header.Get("X-API-Key") != testAPIKey {
		writeJSON(w, 401, `{"code":401,"message":"Invalid API key"}`)
		return
	}
	switch route {
	case "POST create":
		f.create(w, r)
	case "GET link":
		f.link(w, r)
	case "PUT upload":
		f.upload(w, r)
	case "POST start":
		f.start(w, r)
	case "GET status":
		f.status(w, r)
	default:
		writeJSON(w, 404, `{"code":404,"message":"no route"}`)
	}
}

func (f *fakeTemplates) route(r *http.Request) string {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v3/templates":
		return "POST create"
	case r.Method == http.MethodGet && strings.Contains(p, "/files/"):
		return "GET link"
	case r.Method == http.MethodPut && strings.HasPrefix(p, "/upload/"):
		return "PUT upload"
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/v2/templates/"):
		return "POST start"
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/status"):
		return "GET status"
	}
	return r.Method + " " + p
}

func (f *fakeTemplates) create(w http.ResponseWriter, r *http.Request) {
	var req TemplateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, `{"code":400,"message":"bad body"}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := strings.SplitN(req.Name, ":", 2)[0]
	id, ok := f.byName[name]
	if !ok {
		f.seq++
		id = fmt.Sprintf("tpl%017d", f.seq)
		f.byName[name] = id
	}
	f.seq++
	build := fmt.Sprintf("00000000-0000-4000-8000-%012d", f.seq)
	out, _ := json.Marshal(TemplateRequested{TemplateID: id, BuildID: build, Names: []string{name}, Tags: []string{"default"}, Aliases: []string{name}})
	writeJSON(w, 202, string(out))
}

func (f *fakeTemplates) link(w http.ResponseWriter, r *http.Request) {
	hash := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	_, present := f.files[hash]
	f.mu.Unlock()
	headers, _ := json.Marshal(fakeUploadHeaders)
	writeJSON(w, 201, fmt.Sprintf(`{"present":%v,"url":%q,"headers":%s}`, present, f.srv.URL+"/upload/"+hash, headers))
}

// fakeUploadHeaders are the headers the upload link names, as a storage
// service's signed upload may need; a Content-Length among them must not
// replace the archive's own.
var fakeUploadHeaders = map[string]string{
	"x-ms-blob-type": "BlockBlob", "x-ms-meta-files": "context", "Content-Length": "1",
}

func (f *fakeTemplates) upload(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.uploadKeys = append(f.uploadKeys, r.Header.Get("X-API-Key"))
	f.mu.Unlock()
	if r.ContentLength <= 0 {
		writeJSON(w, 411, `{"code":411,"message":"length required"}`)
		return
	}
	for k, v := range fakeUploadHeaders {
		if k != "Content-Length" && r.Header.Get(k) != v {
			writeJSON(w, 400, fmt.Sprintf(`{"code":400,"message":"missing header %s"}`, k))
			return
		}
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		writeJSON(w, 400, `{"code":400,"message":"not gzip"}`)
		return
	}
	var names []string
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			writeJSON(w, 400, fmt.Sprintf(`{"code":400,"message":%q}`, err.Error()))
			return
		}
		names = append(names, h.Name)
	}
	hash := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	f.files[hash] = names
	f.mu.Unlock()
	w.WriteHeader(200)
}

func (f *fakeTemplates) start(w http.ResponseWriter, r *http.Request) {
	var body TemplateBuildStart
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, 400, `{"code":400,"message":"bad body"}`)
		return
	}
	build := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.starts[build]; ok {
		writeJSON(w, 400, `{"code":400,"message":"build already started"}`)
		return
	}
	for _, s := range body.Steps {
		if s.Type == StepCopy {
			if _, ok := f.files[s.FilesHash]; !ok {
				writeJSON(w, 400, fmt.Sprintf(`{"code":400,"message":"files %s were not uploaded"}`, s.FilesHash))
				return
			}
		}
	}
	f.starts[build] = body
	w.WriteHeader(202)
}

func (f *fakeTemplates) status(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(r.URL.Path, "/")
	build := parts[len(parts)-2]
	offset, _ := strconv.Atoi(r.URL.Query().Get("logsOffset"))
	f.mu.Lock()
	defer f.mu.Unlock()
	st := TemplateBuildStatus{TemplateID: parts[2], BuildID: build, Status: BuildStatusWaiting, LogEntries: []BuildLogEntry{}}
	if _, ok := f.starts[build]; ok {
		f.polls[build]++
		released := min(len(f.script), f.polls[build]*f.perPoll)
		st.Status = BuildStatusBuilding
		if offset < released {
			end := min(released, offset+statusPageSize)
			st.LogEntries = f.script[offset:end]
		}
		if released == len(f.script) {
			st.Status = BuildStatusReady
			if f.fail != nil {
				st.Status, st.Reason = BuildStatusError, f.fail
			}
		}
	}
	out, _ := json.Marshal(st)
	writeJSON(w, 200, string(out))
}
