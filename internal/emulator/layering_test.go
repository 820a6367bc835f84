package emulator_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPackagesImportOnlyDownwards keeps the emulator's dependencies one way: each package
// below the root imports only the packages of the emulator listed for it, so none reaches back
// to the server. This map is the one list of allowed imports; package docs point here.
func TestPackagesImportOnlyDownwards(t *testing.T) {
	allowed := map[string][]string{
		"controlplane": {"sandboxes", "envd", "builder", "volumeapi", "delivery", "store", "sandboxos", "egress",
			"hostfs", "httpjson", "ids"},
		"sandboxes":  {"envd", "store", "egress", "ids"},
		"envd":       {"store", "sandboxos", "hostfs", "connectrpc", "httpjson", "ids"},
		"builder":    {"store", "hostfs", "sandboxos", "ids"},
		"volumeapi":  {"store", "sandboxos", "httpjson", "ids"},
		"delivery":   nil,
		"store":      nil,
		"sandboxos":  {"hostfs"},
		"egress":     nil,
		"hostfs":     nil,
		"connectrpc": nil,
		"httpjson":   nil,
		"ids":        nil,
		"portproxy":  nil,
		// The test harness, imported only by tests: it starts the root ("") and speaks to it.
		"emulatortest": {"", "controlplane", "envd", "store", "connectrpc"},
	}
	const prefix = "github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" {
			continue
		}
		ok, known := allowed[e.Name()]
		if !known {
			t.Errorf("package %s is not in the layout: add it to the map above", e.Name())
			continue
		}
		files, _ := filepath.Glob(filepath.Join(e.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue // tests that import upwards live in external x_test packages, which Go allows
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != prefix && !strings.HasPrefix(path, prefix+"/") {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(path, prefix), "/")
				found := false
				for _, a := range ok {
					found = found || a == dep
				}
				if !found {
					t.Errorf("%s imports %q; %s may import only %v of the emulator", f, path, e.Name(), ok)
				}
			}
		}
	}
}
