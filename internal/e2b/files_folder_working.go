package e2b

import (
	"os"
	"path"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

// Terraform's and OpenTofu's working files are left out of folder uploads unless an include
// pattern names them: state files and saved plans hold every secret of the configuration in
// clear, and the CLI writes them (and its lock info, crash logs and .terraform folder) while it
// runs, so a folder that holds its own configuration would never plan the same twice. The
// dependency lock file .terraform.lock.hcl is neither secret nor written during a run: it is
// sent like any other file.

// FolderWorkingFilesNote names what is left out, for messages and docs.
const FolderWorkingFilesNote = "Terraform's and OpenTofu's working files (`.terraform` folders, " +
	"`terraform.tfstate.d`, state files and their backups (`*.tfstate`, `*.tfstate.*`, so also " +
	"`.terraform.tfstate.lock.info`), crash logs, and saved plans: `*.tfplan` and any file that is a plan " +
	"written by `plan -out`, recognised by its content)"

// workingFolder reports whether a folder of this name is a working folder.
func workingFolder(name string) bool {
	return name == ".terraform" || name == "terraform.tfstate.d"
}

// workingFileName reports whether a file of this name is a working file by its name alone.
func workingFileName(name string) bool {
	switch {
	case strings.HasSuffix(name, ".tfstate"), // state files
		strings.Contains(name, ".tfstate."), // their backups and lock info
		strings.HasSuffix(name, ".tfplan"),
		name == "crash.log",
		strings.HasPrefix(name, "crash.") && path.Ext(name) == ".log":
		return true
	}
	return false
}

// savedPlanInRoot reports whether the file rel of root is a saved plan
// (buildcontext.LooksLikeSavedPlan).
func savedPlanInRoot(root *os.Root, rel string, size int64) bool {
	if size < 8 {
		return false
	}
	f, err := root.Open(rel)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	return buildcontext.LooksLikeSavedPlan(f, size)
}
