// Package hostfs is the emulator's ground floor: plain operations on host
// files that every room above uses. It copies trees and files (modes,
// symlinks and user.* extended attributes kept), sums their sizes, and
// keeps what envd keeps on a file in extended attributes: upload metadata
// (user.e2b.<key>) and the owner envd gave it (user.e2b-emulator.owner).
//
// It knows nothing of sandboxes, sandbox paths, templates or the server: it
// takes host paths and imports nothing of the emulator.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package hostfs

// The owners envd reports for a file.
const (
	DefaultOwner = "user"
	RootOwner    = "root"
)
