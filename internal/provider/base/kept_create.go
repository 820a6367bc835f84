package base

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// KeptCreate names, for the diagnostics of a create of an object E2B keeps,
// what kind of object it is and how it is imported.
type KeptCreate struct {
	Kind     string              // "volume"
	Attr     path.Path           // the attribute that names the object (path.Empty() when none does)
	ImportID func(string) string // the import ID of the object with this ID
}

// Settled turns the client's answer to a create into diagnostics and
// reports whether the object exists and must be recorded in state. The
// client settles lost answers itself (see e2b/kept_create.go); this only
// says what happened and what to do.
func (k KeptCreate) Settled(diags *diag.Diagnostics, summary string, err error) bool {
	var interrupted *e2b.InterruptedCreateError
	var exists *e2b.ExistsError
	var unknown *e2b.UnknownCreateError
	switch {
	case err == nil:
		return true
	case errors.As(err, &interrupted):
		diags.AddWarning(fmt.Sprintf("Interrupted, but the %s was made", k.Kind), fmt.Sprintf(
			"The run was interrupted before E2B answered, but E2B had made %s %s. It was found and is recorded in "+
				"state, so nothing is left behind.\n\n%v", k.Kind, interrupted.ID, err))
		return true
	case errors.As(err, &exists) && !k.Attr.Equal(path.Empty()):
		how := "Find its ID (the e2b_" + k.Kind + "s data source) and import it"
		if exists.ID != "" {
			how = fmt.Sprintf("Import it to manage it with this configuration (terraform import <address> %s, or an "+
				"import block)", k.ImportID(exists.ID))
		}
		diags.AddAttributeError(k.Attr, upperFirst(k.Kind)+" already exists", fmt.Sprintf(
			"%v.\n\n%s, or choose another name. The provider never takes over a %s it did not make.", err, how, k.Kind))
	case errors.As(err, &unknown) && len(unknown.Candidates) > 0:
		var imports []string
		for _, id := range unknown.Candidates {
			imports = append(imports, "terraform import <address> "+k.ImportID(id))
		}
		diags.AddError(upperFirst(k.Kind)+" may have been made", fmt.Sprintf(
			"%v.\n\nE2B's answer was lost and E2B's API cannot tell which of these this run made. Import the one this "+
				"configuration should manage (%s) and delete the others, or delete them all and apply again.",
			err, strings.Join(imports, "; ")))
	case errors.As(err, &unknown):
		diags.AddError(upperFirst(k.Kind)+" may have been made", fmt.Sprintf(
			"%v.\n\nE2B's answer was lost, and the %s could not be found or proven to be this run's. If it exists "+
				"(the next apply then reports it as already existing), import it (terraform import <address> <id>) "+
				"or delete it; otherwise apply again.", err, k.Kind))
	case k.Attr.Equal(path.Empty()):
		AddClientError(diags, summary, err)
	default:
		AddClientAttributeError(diags, k.Attr, summary, err)
	}
	return false
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
