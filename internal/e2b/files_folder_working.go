package e2b

import (
	"os"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/tfworking"
)

// Terraform's and OpenTofu's working files (tfworking) are left out of folder uploads unless an
// include pattern names them: state files and saved plans hold every secret of the configuration
// in clear, and the CLI writes them (and its lock info, crash logs and .terraform folder) while it
// runs, so a folder that holds its own configuration would never plan the same twice.

// FolderWorkingFilesNote names what is left out, for messages and docs.
const FolderWorkingFilesNote = tfworking.Note

// savedPlanInRoot reports whether the file rel of root is a saved plan
// (tfworking.LooksLikeSavedPlan).
func savedPlanInRoot(root *os.Root, rel string, size int64) bool {
	if size < 8 {
		return false
	}
	f, err := root.Open(rel)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	return tfworking.LooksLikeSavedPlan(f, size)
}
