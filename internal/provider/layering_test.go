package provider

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// foundationImports is the one list of what each foundation package below internal/provider may
// import of this module (paths relative to the module). None may import package provider, where
// the Terraform types live, nor another foundation package above it: they know no type, and Go's
// imports keep it so only while this list does. Package docs point here.
var foundationImports = map[string][]string{
	"convert":     nil,
	"customtypes": {"internal/provider/convert"},
	"validators":  {"internal/e2b", "internal/provider/convert"},
	"base":        {"internal/e2b", "internal/provider/convert", "internal/provider/customtypes", "internal/provider/validators"},
}

const modulePath = "github.com/e2b-terraform/terraform-provider-e2b"

// TestFoundationPackagesImportNoType parses the imports of every file below internal/provider
// (tests included: a foundation package's test cannot reach a type either) and refuses
// an import of this module that the list above does not allow, and a directory it does not name.
func TestFoundationPackagesImportNoType(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" {
			continue
		}
		allowed, known := foundationImports[e.Name()]
		if !known {
			t.Errorf("internal/provider/%s is not in foundationImports: add it with what it may import", e.Name())
			continue
		}
		seen++
		files, _ := filepath.Glob(filepath.Join(e.Name(), "*.go"))
		if len(files) == 0 {
			t.Errorf("internal/provider/%s holds no Go file", e.Name())
		}
		for _, f := range files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				rel, ours := strings.CutPrefix(p, modulePath+"/")
				if !ours {
					continue
				}
				if !slices.Contains(allowed, rel) {
					t.Errorf("%s imports %s; internal/provider/%s may import only %v of this module", f, rel, e.Name(), allowed)
				}
			}
		}
	}
	if seen != len(foundationImports) {
		t.Errorf("foundationImports names %d packages, %d directories exist: remove what is gone", len(foundationImports), seen)
	}
}
