package emulator

import (
	"fmt"
	"regexp"
	"strings"
)

// Template names follow E2B's rules, those of id.ParseName in e2b-dev/infra
// (packages/shared/pkg/id/id.go): "[namespace/]alias[:tag]", lower-cased and
// trimmed; aliases and namespaces use [a-z0-9_-] (no '.'), tags also '.';
// the tag "default" is the same as no tag; a tag may also be a build ID. The
// provider checks names at plan with the same rule (e2b.ValidateTemplateName);
// TestTemplateNameRuleMatchesProvider keeps the two equal.
var (
	identifierPattern = regexp.MustCompile(`^[a-z0-9_-]+$`)
	tagPattern        = regexp.MustCompile(`^[a-z0-9_.-]+$`)
	uuidPattern       = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// parsedName is a template reference split into its parts.
type parsedName struct {
	namespace string // "" when not given
	alias     string
	tag       string // "" when not given or "default"
}

// identifier is "namespace/alias" or "alias".
func (n parsedName) identifier() string {
	if n.namespace != "" {
		return n.namespace + "/" + n.alias
	}
	return n.alias
}

func cleanPart(value, what string, re *regexp.Regexp) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if !re.MatchString(v) {
		return "", fmt.Errorf("invalid %s: %s", what, value)
	}
	return v, nil
}

// parseTemplateName validates a name the way E2B's API does.
func parseTemplateName(input string) (parsedName, error) {
	var n parsedName
	ident, tag, hasTag := strings.Cut(strings.TrimSpace(input), ":")
	if hasTag {
		t, err := cleanPart(tag, "tag", tagPattern)
		if err != nil {
			return n, err
		}
		if t != defaultTag {
			n.tag = t
		}
	}
	alias := ident
	if ns, rest, found := strings.Cut(ident, "/"); found {
		v, err := cleanPart(ns, "namespace", identifierPattern)
		if err != nil {
			return n, err
		}
		n.namespace, alias = v, rest
	}
	v, err := cleanPart(alias, "template ID", identifierPattern)
	if err != nil {
		return n, err
	}
	n.alias = v
	return n, nil
}

// validateTags cleans and de-duplicates tags (order kept); a tag cannot be a UUID.
func validateTags(tags []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, raw := range tags {
		t, err := cleanPart(raw, "tag", tagPattern)
		if err == nil && uuidPattern.MatchString(t) {
			err = fmt.Errorf("tag cannot be a UUID")
		}
		if err != nil {
			return nil, fmt.Errorf("invalid tag '%s': %w", raw, err)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// namespaceError reports an explicit namespace other than the team's.
func namespaceError(n parsedName) error {
	if n.namespace != "" && n.namespace != teamNamespace {
		return fmt.Errorf("namespace '%s' must match your team '%s'", n.namespace, teamNamespace)
	}
	return nil
}

// templateByIdentifierLocked finds a template by ID, alias or namespace/alias.
func (s *Server) templateByIdentifierLocked(ident string) *template {
	if t, found := s.templates[ident]; found {
		return t
	}
	short := strings.TrimPrefix(ident, teamNamespace+"/")
	for _, t := range s.sortedTemplatesLocked() {
		for _, n := range t.names {
			if n == ident || n == short || strings.TrimPrefix(n, teamNamespace+"/") == short {
				return t
			}
		}
	}
	return nil
}

// findTemplateLocked resolves a template ID or name ([namespace/]alias[:tag]);
// a tag must exist on the template (or be one of its build IDs).
func (s *Server) findTemplateLocked(ref string) *template {
	ident, tag, _ := strings.Cut(ref, ":")
	if ident == "" {
		return nil
	}
	t := s.templateByIdentifierLocked(strings.ToLower(strings.TrimSpace(ident)))
	if t == nil {
		return nil
	}
	if tag = strings.ToLower(strings.TrimSpace(tag)); tag != "" && tag != defaultTag && !t.hasTag(tag) && t.buildByID(tag) == nil {
		return nil
	}
	return t
}

// resolveBuildLocked finds the template and the ready build a reference
// names: the tag (default when absent) or a build ID after the colon.
func (s *Server) resolveBuildLocked(ref string) (*template, *templateBuild) {
	t := s.findTemplateLocked(ref)
	if t == nil {
		return nil, nil
	}
	_, tag, _ := strings.Cut(ref, ":")
	tag = strings.ToLower(strings.TrimSpace(tag))
	if tag == "" {
		tag = defaultTag
	}
	if b := t.buildByID(tag); b != nil {
		if b.status != buildReady {
			return t, nil
		}
		return t, b
	}
	return t, t.taggedBuild(tag)
}

func (t *template) hasTag(tag string) bool {
	for _, a := range t.tags {
		if a.tag == tag {
			return true
		}
	}
	return false
}

func (t *template) buildByID(id string) *templateBuild {
	for _, b := range t.builds {
		if b.id == id {
			return b
		}
	}
	return nil
}

// taggedBuild is the build the tag points at: its newest assignment whose
// build is ready, so a running rebuild never takes a tag away from sandboxes.
func (t *template) taggedBuild(tag string) *templateBuild {
	for i := len(t.tags) - 1; i >= 0; i-- {
		if a := t.tags[i]; a.tag == tag && a.build.status == buildReady {
			return a.build
		}
	}
	return nil
}

// tagList is one entry per tag: the ready build it points at, else its
// newest assignment.
func (t *template) tagList() []tagAssignment {
	var order []string
	latest := map[string]tagAssignment{}
	for _, a := range t.tags {
		prev, seen := latest[a.tag]
		if !seen {
			order = append(order, a.tag)
		}
		if !seen || a.build.status == buildReady || prev.build.status != buildReady {
			latest[a.tag] = a
		}
	}
	out := make([]tagAssignment, 0, len(order))
	for _, tag := range order {
		out = append(out, latest[tag])
	}
	return out
}
