package envd

import (
	"net/http"
	"strings"
	"sync"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
)

const (
	processService    = "/process.Process/"
	filesystemService = "/filesystem.Filesystem/"
)

func isRPC(path string) bool {
	return strings.HasPrefix(path, processService) || strings.HasPrefix(path, filesystemService)
}

// transcoder serves envd's services, compiled once from E2B's own .proto
// files, in the codecs and protocols other than Connect's JSON.
var transcoder = sync.OnceValues(func() (*connectrpc.Transcoder, error) {
	return connectrpc.NewTranscoder(e2bspec.EnvdProtos())
})

// serveRPC answers a process or filesystem RPC as envd's connect-go handlers
// do: Connect with the JSON codec straight from the handlers below; the proto
// codec, gRPC, gRPC-Web and compressed messages through the transcoder, which
// hands the same handlers each message in JSON.
func (sb *Machine) serveRPC(w http.ResponseWriter, r *http.Request) {
	if connectrpc.ServedAsJSON(r) {
		sb.serveJSONRPC(w, r)
		return
	}
	t, err := transcoder()
	if err != nil {
		connectrpc.WriteError(w, connectrpc.Errorf("internal", "envd services: %v", err))
		return
	}
	t.Serve(w, r, http.HandlerFunc(sb.serveJSONRPC))
}

func (sb *Machine) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	if method, ok := strings.CutPrefix(r.URL.Path, processService); ok {
		sb.serveProcessRPC(w, r, method)
		return
	}
	sb.serveFilesystemRPC(w, r, strings.TrimPrefix(r.URL.Path, filesystemService))
}
