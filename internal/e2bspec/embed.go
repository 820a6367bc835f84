// Package e2bspec carries E2B's published API descriptions, byte for byte
// (see NOTICE for where each file comes from), so that the emulator at run
// time and the tests read the same documents and neither depends on files
// outside the repository.
//
// Three sets of documents describe E2B at three points in time:
//
//   - Newest: the newest SDK-side control-plane spec (runtime plus the v2
//     create/connect/fork operations and the events/webhooks API) with the
//     server-side envd spec. The emulator serves and validates against it.
//   - Runtime: the server-side specs (E2B's API server and envd). Spec tests
//     run against it too, so that a later spec drop shows what changed.
//   - SDK: the older SDK-side copies the JS SDK's client is generated from;
//     the SDK's own wire traffic is checked against them (conformance).
//
// The layout mirrors the one E2B_SPEC_DIR may point at (a later spec drop):
// openapi.yml, envd/envd.yaml and openapi-volumecontent.yml at the root
// (SDK side), runtime/ and newest/ beside them.
package e2bspec

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yml openapi-volumecontent.yml envd/envd.yaml runtime/openapi.yml runtime/envd/envd.yaml newest/openapi.yml
//go:embed envd/process/process.proto envd/filesystem/filesystem.proto
var files embed.FS

// Document names, relative to the spec root.
const (
	NewestControl    = "newest/openapi.yml"
	RuntimeControl   = "runtime/openapi.yml"
	RuntimeEnvd      = "runtime/envd/envd.yaml"
	SDKControl       = "openapi.yml"
	SDKEnvd          = "envd/envd.yaml"
	SDKVolumeContent = "openapi-volumecontent.yml"
)

// envd's Connect services, as protobuf sources; their import paths are these names relative to
// envd/ (the layout of E2B's spec/envd).
const (
	EnvdProcessProto    = "envd/process/process.proto"
	EnvdFilesystemProto = "envd/filesystem/filesystem.proto"
)

// EnvdProtos returns envd's protobuf sources by import path ("process/process.proto").
func EnvdProtos() map[string]string {
	out := map[string]string{}
	for _, name := range []string{EnvdProcessProto, EnvdFilesystemProto} {
		data, err := Read(name)
		if err != nil {
			panic(err) // embedded: cannot fail
		}
		out[strings.TrimPrefix(name, "envd/")] = string(data)
	}
	return out
}

// Set names the documents that together describe E2B at one point: the
// control plane, envd and the volume-content API.
type Set struct {
	Name                         string
	Control, Envd, VolumeContent string
}

// The sets of documents. No newer envd or volume-content spec than the
// runtime/SDK ones is published, so the newer sets reuse those.
var (
	Newest  = Set{Name: "newest", Control: NewestControl, Envd: RuntimeEnvd, VolumeContent: SDKVolumeContent}
	Runtime = Set{Name: "runtime", Control: RuntimeControl, Envd: RuntimeEnvd, VolumeContent: SDKVolumeContent}
	SDK     = Set{Name: "sdk", Control: SDKControl, Envd: SDKEnvd, VolumeContent: SDKVolumeContent}
)

// Served is the set the emulator serves and validates requests against.
var Served = Newest

// Read returns the embedded document name.
func Read(name string) ([]byte, error) {
	return fs.ReadFile(files, name)
}

// ReadFrom returns document name from dir, or the embedded copy when dir is "".
func ReadFrom(dir, name string) ([]byte, error) {
	if dir == "" {
		return Read(name)
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
}

// Load parses and validates document name, read as ReadFrom reads it.
func Load(dir, name string) (*openapi3.T, error) {
	data, err := ReadFrom(dir, name)
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", name, err)
	}
	return doc, nil
}
