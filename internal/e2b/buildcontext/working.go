package buildcontext

import (
	"os"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
)

// Terraform's and OpenTofu's working files (tfworking) are never part of a
// context, whatever the COPY steps and ignore patterns say: they change while
// the CLI runs (so a context that holds them would never converge), and state
// and plan files hold every secret of the configuration in clear. E2B's SDK
// knows nothing of them; a context without them hashes as in the SDK.

// WorkingFilesNote names the files workingFile leaves out, for messages.
const WorkingFilesNote = tfworking.Note + " are never sent"

// workingFile reports whether rel (a "/"-separated path in the context) is a
// working file by its name or lies in a working folder. Saved plans of other
// names are recognised by their content (isPlanFile).
func workingFile(rel string) bool { return tfworking.Path(rel) }

// isPlanFile reports whether the regular file at p is a saved plan
// (tfworking.LooksLikeSavedPlan).
func isPlanFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return tfworking.LooksLikeSavedPlan(f, fi.Size())
}
