package controlplane

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// The provider refuses at plan exactly the names the emulator refuses at
// POST /v3/templates, both applying E2B's rule (e2b-dev/infra id.ParseName):
// every name over an alphabet that reaches each branch of the rule, up to
// four characters, plus the length limit. The provider asks for the form E2B
// stores (lower-case, trimmed, no tag), so only such names are compared.
func TestTemplateNameRuleMatchesProvider(t *testing.T) {
	alphabet := []string{"a", "0", "-", "_", ".", "/"}
	names := []string{strings.Repeat("a", e2b.MaxTemplateNameLen), strings.Repeat("a", e2b.MaxTemplateNameLen+1),
		teamNamespace + "/" + strings.Repeat("b", e2b.MaxTemplateNameLen-len(teamNamespace)-1)}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	for _, name := range names {
		_, perr := parseTemplateName(name)
		emulatorOK := perr == nil && name != "" && len(name) <= e2b.MaxTemplateNameLen
		providerOK := e2b.ValidateTemplateName(name) == nil
		if emulatorOK != providerOK {
			t.Errorf("%q: the emulator accepts it: %v (%v), the provider accepts it: %v", name, emulatorOK, perr, providerOK)
		}
	}
}
