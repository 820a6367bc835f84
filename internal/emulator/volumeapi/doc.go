// Package volumeapi is E2B's volume-content API (openapi-volumecontent.yml):
// stat, chmod/chown, remove, list, mkdir, download and upload of a volume's
// files, authorised by the volume's token (an HS256 JWT signed with the
// volume's key, made here by Token), with paths resolved beneath the
// volume's directory through an os.Root: a symbolic link that a sandbox
// mounting the volume planted is followed only while it stays inside; a path
// it leads out of answers 400.
//
// It finds volumes through the store and touches only their content
// directories; counting, faults and routing to it stay with the emulator.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package volumeapi
