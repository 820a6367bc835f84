package tfworking

import (
	"path"
	"strings"
)

// Note names the working files, for messages and docs.
const Note = "Terraform's and OpenTofu's working files (`.terraform` and `terraform.tfstate.d` folders, " +
	"state files and their backups (`*.tfstate`, `*.tfstate.*`, so also `.terraform.tfstate.lock.info`), " +
	"`.terraform.lock.hcl`, crash logs, and saved plans: `*.tfplan` and any file that is a plan written by " +
	"`plan -out`, recognised by its content)"

// ConfigurationNote names what downloads refuse beyond the working files, for messages and docs.
const ConfigurationNote = "configuration and settings files (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`, " +
	"`*.tfvars`, `*.tfvars.json`, test, query and mock files, `terraform.d` plugin folders, `.terraformrc`, `terraform.rc`)"

// Folder reports whether a folder of this name is a working folder.
func Folder(name string) bool {
	return name == ".terraform" || name == "terraform.tfstate.d"
}

// FileName reports whether a file of this name is a working file by its name alone
// (a saved plan of another name is recognised by its content: LooksLikeSavedPlan).
func FileName(name string) bool {
	switch {
	case strings.HasSuffix(name, ".tfstate"), // state files
		strings.Contains(name, ".tfstate."), // their backups and lock info
		strings.HasSuffix(name, ".tfplan"),
		name == ".terraform.lock.hcl",
		name == "crash.log",
		strings.HasPrefix(name, "crash.") && path.Ext(name) == ".log":
		return true
	}
	return false
}

// Path reports whether rel (a "/"-separated relative path) is a working file by its
// name or lies in a working folder.
func Path(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if Folder(p) {
			return true
		}
	}
	last := parts[len(parts)-1]
	return Folder(last) || FileName(last)
}

// configSuffixes are the endings of files the CLI loads as configuration, variables,
// tests, queries or mocks.
var configSuffixes = []string{
	".tf", ".tf.json", ".tofu", ".tofu.json",
	".tfvars", ".tfvars.json",
	".tftest.hcl", ".tftest.json", ".tofutest.hcl", ".tofutest.json",
	".tfquery.hcl", ".tfquery.json", ".tfmock.hcl", ".tfmock.json",
}

// ConfigurationName reports whether a file or folder of this name is configuration the
// CLI loads or runs: configuration, variables, test, query and mock files, the CLI's
// settings, or the terraform.d folder it takes providers from.
func ConfigurationName(name string) bool {
	if name == "terraform.d" || name == ".terraformrc" || name == "terraform.rc" {
		return true
	}
	lower := strings.ToLower(name)
	for _, s := range configSuffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	return false
}

// Unwritable reports whether a download must not write rel (a "/"-separated path
// relative to the download's destination): a working file or folder, a configuration
// file, or anything under such a folder, at any depth.
func Unwritable(rel string) bool {
	// Lower-cased too: on a case-insensitive disk (macOS, Windows) ".Terraform/x" or
	// "Terraform.TFSTATE" is the working file itself.
	if Path(rel) || Path(strings.ToLower(rel)) {
		return true
	}
	for _, p := range strings.Split(rel, "/") {
		if ConfigurationName(p) {
			return true
		}
	}
	return false
}
