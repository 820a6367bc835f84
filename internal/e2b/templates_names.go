package e2b

import (
	"fmt"
	"regexp"
	"strings"
)

// E2B's rules for template names and tags are those of its API, which parses
// every name with ParseName in e2b-dev/infra, packages/shared/pkg/id/id.go:
// "[namespace/]alias[:tag]", trimmed and lower-cased, where the namespace and
// the alias match ^[a-z0-9-_]+$ (no '.') and a tag ^[a-z0-9-_.]+$ and is not
// a UUID. The spec caps a name (POST /v3/templates "name") at 128 characters.
// The emulator (internal/emulator/template_names.go) applies the same rules;
// a test there keeps the two equal.
var (
	templateIdentifierPattern = regexp.MustCompile(`^[a-z0-9_-]+$`)
	templateTagPattern        = regexp.MustCompile(`^[a-z0-9_.-]+$`)
	buildIDPattern            = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// MaxTemplateNameLen is the longest name POST /v3/templates takes.
const MaxTemplateNameLen = 128

// ValidateTemplateName checks a name to create a template under: "alias" or
// "namespace/alias", without a tag, in the lower-case form E2B stores (a name
// with capitals would be stored, and found again, under another spelling).
func ValidateTemplateName(name string) error {
	if name == "" || len(name) > MaxTemplateNameLen {
		return fmt.Errorf("must be 1 to %d characters long", MaxTemplateNameLen)
	}
	if strings.Contains(name, ":") {
		return fmt.Errorf("must not carry a tag (\":tag\"); tags are e2b_template_tag's")
	}
	ns, alias, hasNS := strings.Cut(name, "/")
	if !hasNS {
		ns, alias = "", name
	}
	if hasNS && !templateIdentifierPattern.MatchString(ns) {
		return fmt.Errorf("must have a namespace of lower-case letters, digits, '_' and '-' only (E2B's rule; no '.', no second '/')")
	}
	if !templateIdentifierPattern.MatchString(alias) {
		return fmt.Errorf("must be lower-case letters, digits, '_' and '-' only, optionally after \"namespace/\" (E2B's rule; no '.')")
	}
	return nil
}

// ValidateTemplateTag applies E2B's rules for a tag. E2B lower-cases tags, so
// a tag with capitals would never be found again under the name it was given;
// a UUID is refused because after a colon it names a build.
func ValidateTemplateTag(tag string) error {
	switch {
	case !templateTagPattern.MatchString(tag):
		return fmt.Errorf("must be lower-case letters, digits, '.', '_' and '-' (E2B lower-cases tags)")
	case buildIDPattern.MatchString(tag):
		return fmt.Errorf("must not be a UUID: after a colon a UUID names a build, not a tag")
	}
	return nil
}

// ValidateBuildID checks that id is a build ID as E2B returns it: a
// lower-case UUID. A tag in its place would name whatever build the tag
// points at, which changes under the caller.
func ValidateBuildID(id string) error {
	if !buildIDPattern.MatchString(id) {
		return fmt.Errorf("must be a build ID, a lower-case UUID such as e2b_template.<name>.build_id (not a tag)")
	}
	return nil
}

// TagOnlyAdded reports whether configured names the template imported names, with a tag that
// imported lacks: "python-app:prod" (or "my-team/python-app:prod") for "python-app" or
// "my-team/python-app". E2B's sandbox detail names a sandbox's template by its alias without
// the tag it was started from, so an import cannot read the tag back.
func TagOnlyAdded(imported, configured string) bool {
	name, tag, hasTag := strings.Cut(configured, ":")
	if !hasTag || tag == "" || strings.Contains(imported, ":") {
		return false
	}
	bare := func(s string) string { return s[strings.LastIndex(s, "/")+1:] }
	if strings.Contains(name, "/") && strings.Contains(imported, "/") {
		return name == imported
	}
	return bare(name) == bare(imported)
}
