package egress

import (
	"fmt"
	"regexp"
)

var placeholder = regexp.MustCompile(`\$\{e2b\.(secrets|identity\.tokens)\.([^{}\s]+)\}`)

// Lookup resolves one placeholder: a secret's current value, or a freshly minted workload
// token of the sandbox.
type Lookup struct {
	Secret   func(name string) (string, bool)
	Identity func(name string) (string, bool)
}

// Fill replaces ${e2b.secrets.<name>} and ${e2b.identity.tokens.<name>} in v. An unknown name is
// an error naming it: E2B fails such a request rather than send the placeholder on.
func Fill(v string, l Lookup) (string, error) {
	var missing error
	out := placeholder.ReplaceAllStringFunc(v, func(m string) string {
		parts := placeholder.FindStringSubmatch(m)
		kind, name := parts[1], parts[2]
		get, what := l.Secret, "secret"
		if kind != "secrets" {
			get, what = l.Identity, "workload identity token"
		}
		if get != nil {
			if val, ok := get(name); ok {
				return val
			}
		}
		if missing == nil {
			missing = fmt.Errorf("%s '%s' does not exist", what, name)
		}
		return ""
	})
	return out, missing
}

// Apply sets the headers of rules on h, filling their placeholders.
func Apply(rules []Rule, set func(name, value string), l Lookup) error {
	for _, r := range rules {
		if r.Transform == nil {
			continue
		}
		for name, v := range r.Transform.Headers {
			filled, err := Fill(v, l)
			if err != nil {
				return fmt.Errorf("header %s: %w", name, err)
			}
			set(name, filled)
		}
	}
	return nil
}
