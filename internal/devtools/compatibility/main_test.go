package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every page that shows the compatibility table shows table.go's: the template scripts/docs.sh
// renders, the page it renders (docs/index.md) and README.md's copy.
func TestPagesHoldTheTable(t *testing.T) {
	want := Markdown()
	for _, page := range []string{"templates/index.md.tmpl", "docs/index.md", "README.md"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		_, got, _, err := split(string(raw))
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if got != want {
			t.Errorf("%s holds another compatibility table than internal/devtools/compatibility/table.go: "+
				"run 'make docs' and commit the result\n--- %s\n%s--- table.go\n%s", page, page, got, want)
		}
	}
}

// The table replaces exactly the lines after the marker; text around it stays as it was.
func TestWithTableReplacesOnlyTheTable(t *testing.T) {
	page := "# Title\n\n" + marker + "source -->\n| old | table |\n|---|---|\n| a | b |\n\nAfter.\n"
	got, err := withTable(page)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\n" + marker + "source -->\n" + Markdown() + "\nAfter.\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if again, _ := withTable(got); again != got {
		t.Fatalf("a second run changed the page:\n%s", again)
	}
	for _, bad := range []string{"no marker\n", "\n" + marker + "x -->\n|a|\n\n" + marker + "y -->\n"} {
		if _, err := withTable(bad); err == nil || !strings.Contains(err.Error(), marker) {
			t.Errorf("page %q: %v, want an error naming the marker", bad, err)
		}
	}
}

// Every row names its versions as major.minor, and a feature OpenTofu lacks says so once.
func TestRowsAreWellFormed(t *testing.T) {
	version := func(v string) bool {
		major, minor, ok := strings.Cut(v, ".")
		return ok && major != "" && minor != "" && strings.Trim(major+minor, "0123456789") == ""
	}
	for _, r := range Table {
		if r.Feature == "" || strings.Contains(r.Feature, "|") || !version(r.Terraform) ||
			(r.OpenTofu != "" && (!version(r.OpenTofu) || r.OpenTofuInstead != "")) {
			t.Errorf("row %+v: want a feature without '|', Terraform as major.minor, and OpenTofu as major.minor or empty (then OpenTofuInstead, if any)", r)
		}
	}
}
