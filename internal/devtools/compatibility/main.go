// Command compatibility writes the provider's compatibility table (table.go) into a Markdown
// page: it reads the page on standard input and prints it with the table that follows the
// "<!-- compatibility: " marker line replaced by the one table.go gives. scripts/docs.sh runs
// it over templates/index.md.tmpl, whose section it then copies into README.md; the package's
// test fails when either file holds another table.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

const marker = "<!-- compatibility: "

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err == nil {
		var out string
		if out, err = withTable(string(in)); err == nil {
			_, err = io.WriteString(os.Stdout, out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compatibility:", err)
		os.Exit(1)
	}
}

// Markdown is the table as the pages show it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| feature | Terraform | OpenTofu |\n|---|---|---|\n")
	for _, r := range Table {
		tofu := "not supported"
		switch {
		case r.OpenTofu != "":
			tofu = r.OpenTofu + "+"
		case r.OpenTofuInstead != "":
			tofu += " (" + r.OpenTofuInstead + ")"
		}
		fmt.Fprintf(&b, "| %s | %s+ | %s |\n", r.Feature, r.Terraform, tofu)
	}
	return b.String()
}

// withTable returns page with Markdown in place of the table lines ("|...") right after its
// marker line.
func withTable(page string) (string, error) {
	before, _, after, err := split(page)
	if err != nil {
		return "", err
	}
	return before + Markdown() + after, nil
}

// split cuts page around its table: everything up to and including the marker line, the
// table's lines, and the rest.
func split(page string) (before, table, after string, err error) {
	start := strings.Index(page, "\n"+marker)
	if start < 0 {
		return "", "", "", fmt.Errorf("no %q line", marker)
	}
	if strings.Contains(page[start+1:], "\n"+marker) {
		return "", "", "", fmt.Errorf("more than one %q line", marker)
	}
	lineEnd := strings.IndexByte(page[start+1:], '\n')
	if lineEnd < 0 {
		return "", "", "", fmt.Errorf("nothing after the %q line", marker)
	}
	cut := start + 1 + lineEnd + 1
	end := cut
	sc := bufio.NewScanner(strings.NewReader(page[cut:]))
	for sc.Scan() && strings.HasPrefix(sc.Text(), "|") {
		end += len(sc.Text()) + 1
	}
	return page[:cut], page[cut:end], page[end:], nil
}
