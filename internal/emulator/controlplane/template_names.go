package controlplane

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
