package buildcontext

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path"
	"strings"
)

// Terraform's and OpenTofu's working files are never part of a context,
// whatever the COPY steps and ignore patterns say: they change while the
// CLI runs (so a context that holds them would never converge), and state
// and plan files hold every secret of the configuration in clear. E2B's SDK
// knows nothing of them; a context without them hashes as in the SDK.

// WorkingFilesNote names the files workingFile leaves out, for messages.
const WorkingFilesNote = "Terraform's and OpenTofu's working files (.terraform folders, state files and their backups " +
	"and lock files, terraform.tfstate.d, .terraform.lock.hcl, crash logs and saved plans) are never sent"

// workingFile reports whether rel (a "/"-separated path in the context)
// names a working file of Terraform or OpenTofu by its name, or lies in a
// working folder. Saved plans, which have no fixed name, are recognised by
// their content (isPlanFile).
func workingFile(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == ".terraform" || p == "terraform.tfstate.d" {
			return true
		}
	}
	name := parts[len(parts)-1]
	switch {
	case strings.HasSuffix(name, ".tfstate"), // state files
		strings.Contains(name, ".tfstate."), // their backups and lock info
		name == ".terraform.lock.hcl",
		name == "crash.log",
		strings.HasPrefix(name, "crash.") && path.Ext(name) == ".log":
		return true
	}
	return false
}

// isPlanFile reports whether the regular file at p is a saved plan
// (LooksLikeSavedPlan).
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
	return LooksLikeSavedPlan(f, fi.Size())
}

// LooksLikeSavedPlan reports whether r (a regular file of size bytes) is a
// saved plan (`plan -out`): a zip archive holding a "tfplan" entry, or an
// OpenTofu plan encrypted as {"meta":…,"encrypted_data":…,"encryption_version":…}.
// It reads the first bytes and, for a zip archive, its directory.
func LooksLikeSavedPlan(r io.ReaderAt, size int64) bool {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		zr, err := zip.NewReader(r, size)
		if err != nil {
			return false
		}
		for _, zf := range zr.File {
			if zf.Name == "tfplan" {
				return true
			}
		}
	case bytes.Equal(head, []byte(`{"meta":`)):
		tail := make([]byte, min(size, 256))
		if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
			return false
		}
		tail = bytes.TrimSpace(tail)
		return bytes.Contains(tail, []byte(`"encryption_version":"`)) && bytes.HasSuffix(tail, []byte(`"}`))
	}
	return false
}
