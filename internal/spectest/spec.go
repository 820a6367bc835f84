// Package spectest validates HTTP traffic against E2B's published OpenAPI
// specs (the control plane's openapi.yml, envd's envd.yaml) with kin-openapi,
// and checks the Connect RPC framing that the specs do not cover. The specs
// are the copies in internal/e2bspec (E2B_SPEC_DIR may point at a later drop
// laid out the same way). Tests wrap their client's transport with a
// Validator and fail on any recorded violation:
//
//	v := spectest.New(t) // the newest specs; NewFor(t, e2bspec.Runtime) for another set
//	client := &http.Client{Transport: v.Wrap(nil)}
//	// ... every exchange is checked; t fails at cleanup on any violation.
//
// Routing: requests to the Connect paths (/process.Process/*,
// /filesystem.Filesystem/*) get the Connect checks; requests carrying
// E2b-Sandbox-Id (or to /files) are matched against envd.yaml; the rest
// against openapi.yml. Binary bodies stream through unbuffered: only their
// content type is checked.
package spectest

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// controlServer is where the control-plane spec's server lives; requests are
// re-addressed to it for route matching.
const controlServer = "https://api.e2b.app"

// specs are the parsed documents and their routers, loaded once per set.
type specs struct {
	set                       e2bspec.Set
	control, envd             *openapi3.T
	controlRouter, envdRouter routers.Router
	volumeRouter              routers.Router // the volume-content API
}

var (
	loadMu sync.Mutex
	loaded = map[string]*specs{}
)

// Dir is where the specs are read from: $E2B_SPEC_DIR, or "" for the copies
// embedded from internal/e2bspec.
func Dir() string { return os.Getenv("E2B_SPEC_DIR") }

// require returns the loaded specs of set, failing t when they do not load.
func require(t testing.TB, set e2bspec.Set) *specs {
	t.Helper()
	s, err := load(set)
	if err != nil {
		from := "internal/e2bspec"
		if d := Dir(); d != "" {
			from = d + " (E2B_SPEC_DIR)"
		}
		t.Fatalf("loading E2B's %s specs from %s: %v", set.Name, from, err)
	}
	return s
}

func load(set e2bspec.Set) (*specs, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if s, ok := loaded[set.Name]; ok {
		return s, nil
	}
	dir := Dir()
	control, err := e2bspec.Load(dir, set.Control)
	if err != nil {
		return nil, err
	}
	envd, err := e2bspec.Load(dir, set.Envd)
	if err != nil {
		return nil, err
	}
	vol, err := e2bspec.Load(dir, set.VolumeContent)
	if err != nil {
		return nil, err
	}
	// Route control-plane requests by path only: they are re-addressed to
	// the spec's server before matching. envd has no servers entry.
	control.Servers = openapi3.Servers{{URL: controlServer}}
	envd.Servers = openapi3.Servers{{URL: "/"}}
	vol.Servers = openapi3.Servers{{URL: controlServer}}
	s := &specs{set: set, control: control, envd: envd}
	if s.controlRouter, err = gorillamux.NewRouter(control); err != nil {
		return nil, fmt.Errorf("control-plane router: %w", err)
	}
	if s.envdRouter, err = gorillamux.NewRouter(envd); err != nil {
		return nil, fmt.Errorf("envd router: %w", err)
	}
	if s.volumeRouter, err = gorillamux.NewRouter(vol); err != nil {
		return nil, fmt.Errorf("volume-content router: %w", err)
	}
	loaded[set.Name] = s
	return s, nil
}
