// Package buildcontext reads the local folder a template build copies files
// from (its build context) the way E2B's SDK does, without talking to E2B:
// it selects what a COPY step sends, hashes it and writes it as the tar
// archive E2B's build takes. The client (package e2b) uploads what this
// package produces; this package knows nothing of the API.
//
// Files, by stage:
//   - context.go: Context (the folder, its ignore patterns, NormalizeModes);
//     which entries a COPY sends (copyEntries) and their files hash
//     (HashCopy), equal to the SDK's for the same folder.
//   - glob.go: the SDK's pattern syntax (minimatch with dot:true), compiled
//     to segments; Glob exports it for folder uploads.
//   - walk.go: node-glob's walk over the folder with those patterns.
//   - scope.go: the one departure from the SDK on purpose: a link that leads
//     out of the context is never followed (*LinkEscapeError).
//   - working.go: Terraform's and OpenTofu's working files (state, plans,
//     .terraform) are never sent, whatever the patterns say.
//   - archive.go: the tar archive of one COPY (WriteCopyArchive).
//
// sdk_parity_test.go checks hashes against E2B's JS SDK run by Node
// (conformance/), and archive_test.go the archive against the SDK's.
package buildcontext
