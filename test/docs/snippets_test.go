package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The snippets a reader copies out of running text: an inline `terraform { ... }` or
// `timeout = "24h"` is pasted into a .tf file as it is, so it must be valid HCL as it is.
// Every CLI parses HCL the same way (hclsyntax), so a parse here is the parse every CLI
// makes; TestDocsRun then validates and runs the fenced blocks on each CLI.
var (
	inlineCodeRE = regexp.MustCompile("`([^`]+)`")
	// A span that opens a block ("terraform {", `resource "e2b_sandbox" "x" {`) or sets an
	// argument (`timeout = "24h"`) is configuration; anything else (a name, a command, an
	// expression) is prose.
	inlineBlockRE = regexp.MustCompile(`^[a-z_]+(\s+"[^"]*")*\s*\{`)
	inlineArgRE   = regexp.MustCompile(`^[a-z_][a-z0-9_]*\s*=\s*\S`)
)

// snippetPages are the pages a reader copies from: docs/, README.md and the examples' READMEs.
func snippetPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{filepath.Join(root, "README.md")}
	for _, dir := range []string{"docs", "examples", "templates"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".md.tmpl")) {
				pages = append(pages, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(pages)
	return pages
}

// snippet is one piece of configuration a page shows.
type snippet struct {
	line   int
	inline bool
	text   string
}

// pageSnippets gives a page's configuration blocks and its inline configuration spans.
// Template actions ({{ tffile ... }}) are not configuration: the example files they name
// are .tf files that scripts/examples.sh validates on every CLI.
func pageSnippets(text string) []snippet {
	var (
		out   []snippet
		lines = strings.Split(text, "\n")
		para  []string
		start int
	)
	flush := func() {
		joined := strings.Join(para, " ")
		for _, m := range inlineCodeRE.FindAllStringSubmatch(joined, -1) {
			s := strings.TrimSpace(m[1])
			if strings.Contains(s, "{{") || strings.Contains(s, "->") { // a template action; plan output
				continue
			}
			if inlineBlockRE.MatchString(s) || inlineArgRE.MatchString(s) {
				out = append(out, snippet{line: start, inline: true, text: s})
			}
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.TrimSpace(lines[i]) == "" {
				flush()
				continue
			}
			if len(para) == 0 {
				start = i + 1
			}
			para = append(para, lines[i])
			continue
		}
		flush()
		lang, line := m[1], i+1
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if lang == "terraform" || lang == "hcl" {
			out = append(out, snippet{line: line, text: strings.Join(body, "\n") + "\n"})
		}
	}
	flush()
	return out
}

// TestDocsSnippetsParse fails on any configuration a page shows, fenced or inline, that
// is not valid HCL as copied, such as a one-line `terraform` block holding nested blocks.
func TestDocsSnippetsParse(t *testing.T) {
	root := harness.RepoRoot(t)
	checked := 0
	// One failure per distinct snippet, with every place it is shown.
	invalid := map[string][]string{}
	var order []string
	for _, p := range snippetPages(t, root) {
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range pageSnippets(string(data)) {
			if strings.Contains(s.text, "{{") { // a template's block holds template actions
				continue
			}
			checked++
			_, diags := hclsyntax.ParseConfig([]byte(s.text), "snippet", hcl.Pos{Line: 1, Column: 1})
			if !diags.HasErrors() {
				continue
			}
			kind := "block"
			if s.inline {
				kind = "inline snippet"
			}
			key := kind + " is not valid as copied: " + diags.Error() + "\n" + s.text
			if _, seen := invalid[key]; !seen {
				order = append(order, key)
			}
			invalid[key] = append(invalid[key], fmt.Sprintf("%s:%d", rel, s.line))
		}
	}
	for _, key := range order {
		t.Errorf("%s\n  shown at %s", key, strings.Join(invalid[key], ", "))
	}
	if checked == 0 {
		t.Fatal("no configuration found in the pages: the scan is broken")
	}
	t.Logf("%d snippets parsed", checked)
}

// TestDocsSnippetsParseCatchesOneLineHeader shows the check fails on the one-line
// terraform block, and passes its valid forms.
func TestDocsSnippetsParseCatchesOneLineHeader(t *testing.T) {
	page := "Declare it:\n`terraform { required_providers { e2b = { source = \"e2b-terraform/e2b\" } } }`.\n\n" +
		"Set `timeout = \"1h\"` and `lifecycle { destroy = false }`.\n\n```terraform\nresource \"e2b_sandbox\" \"x\" {\n}\n```\n"
	var bad []string
	snips := pageSnippets(page)
	for _, s := range snips {
		if _, diags := hclsyntax.ParseConfig([]byte(s.text), "page.md", hcl.Pos{Line: s.line, Column: 1}); diags.HasErrors() {
			bad = append(bad, s.text)
		}
	}
	if len(snips) != 4 || len(bad) != 1 || !strings.HasPrefix(bad[0], "terraform {") {
		t.Fatalf("want 4 snippets with the one-line terraform block the only invalid one; got %d snippets, invalid: %q", len(snips), bad)
	}
}
