// Package spectest validates HTTP traffic against E2B's published OpenAPI
// specs (openapi.yml for the control plane, envd/envd.yaml for envd) with
// kin-openapi, and checks the Connect RPC framing that the specs do not
// cover. Tests wrap their client's transport with a Validator and fail on
// any recorded violation:
//
//	v := spectest.New(t) // skips (or fails with E2B_REQUIRE_SPEC=1) without the specs
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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// controlServer is where the control-plane spec's server lives; requests are
// re-addressed to it for route matching.
const controlServer = "https://api.e2b.app"

// MissingSpecMessage explains how to provide the specs.
const MissingSpecMessage = "put E2B's published specs (openapi.yml, envd/envd.yaml) in ../shared/e2b-spec or set E2B_SPEC_DIR"

// specs are the parsed documents and their routers, loaded once.
type specs struct {
	control, envd             *openapi3.T
	controlRouter, envdRouter routers.Router
	// volumeRouter matches the volume-content API (openapi-volumecontent.yml);
	// nil when that spec is not in the directory.
	volumeRouter routers.Router
}

var (
	loadOnce   sync.Once
	loaded     *specs
	loadErr    error
	loadedFrom string
)

// Dir returns the spec directory: $E2B_SPEC_DIR, else <repo>/../shared/e2b-spec.
func Dir() string {
	if d := os.Getenv("E2B_SPEC_DIR"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "e2b-spec")
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		// The repository root is the first go.mod upwards (not the tools module).
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && filepath.Base(dir) != "tools" {
			return filepath.Join(dir, "..", "shared", "e2b-spec")
		}
		if filepath.Dir(dir) == dir {
			return filepath.Join(wd, "..", "shared", "e2b-spec")
		}
	}
}

// require returns the loaded specs or skips (fails with E2B_REQUIRE_SPEC=1).
func require(t testing.TB) *specs {
	t.Helper()
	dir := Dir()
	for _, f := range []string{"openapi.yml", filepath.Join("envd", "envd.yaml")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			msg := fmt.Sprintf("E2B spec %s not found in %s: %s", f, dir, MissingSpecMessage)
			if os.Getenv("E2B_REQUIRE_SPEC") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	loadOnce.Do(func() {
		loadedFrom = dir
		loaded, loadErr = load(dir)
	})
	if loadErr != nil {
		t.Fatalf("loading E2B specs from %s: %v", loadedFrom, loadErr)
	}
	return loaded
}

func load(dir string) (*specs, error) {
	control, err := loadDoc(filepath.Join(dir, "openapi.yml"))
	if err != nil {
		return nil, err
	}
	envd, err := loadDoc(filepath.Join(dir, "envd", "envd.yaml"))
	if err != nil {
		return nil, err
	}
	// Route control-plane requests by path only: they are re-addressed to
	// the spec's server before matching. envd has no servers entry.
	control.Servers = openapi3.Servers{{URL: controlServer}}
	envd.Servers = openapi3.Servers{{URL: "/"}}
	s := &specs{control: control, envd: envd}
	if s.controlRouter, err = gorillamux.NewRouter(control); err != nil {
		return nil, fmt.Errorf("control-plane router: %w", err)
	}
	if s.envdRouter, err = gorillamux.NewRouter(envd); err != nil {
		return nil, fmt.Errorf("envd router: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "openapi-volumecontent.yml")); err == nil {
		vol, err := loadDoc(filepath.Join(dir, "openapi-volumecontent.yml"))
		if err != nil {
			return nil, err
		}
		vol.Servers = openapi3.Servers{{URL: controlServer}}
		if s.volumeRouter, err = gorillamux.NewRouter(vol); err != nil {
			return nil, fmt.Errorf("volume-content router: %w", err)
		}
	}
	return s, nil
}

func loadDoc(path string) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", path, err)
	}
	return doc, nil
}
