// Package builder runs template builds: the base (a built template or an
// image), then each step in order (RUN, COPY, ENV, WORKDIR, USER) in a
// build sandbox of its own, then the start and ready commands. Every
// finished step is kept in the step cache under the hash of its inputs
// chained to the previous step's, as E2B's layers are; a finished build's
// files never change.
//
// It keeps the build's record (status, log, reason, result) through the
// store's operations and reaches everything else through a Backend: the
// sandboxes the steps run in, the image store and the uploaded file
// archives. It holds no pointer to the server.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
//
// # Template builds
//
// POST /v3/templates registers a waiting build of a template named
// "local-team/<name>" with its tags (default when none). It refuses what
// E2B's API refuses: names outside E2B's rule (no '.'), more than 32 vCPUs or
// an odd number above 1, an odd number of MiB. Starting it runs the
// build in the background, in a sandbox of its own: the base (fromTemplate:
// any built template or snapshot, by name, name:tag or name:buildID;
// fromImage: an image from the store, or the base root filesystem for
// E2B's base image or an image HostRootImages names, with a build-log line
// saying which; any other image fails the build),
// then the steps in order: RUN (bash -l, in the workdir, with the ENV
// values), COPY from the uploaded archive, ENV (values expanded like E2B's
// envsubst), WORKDIR, USER; then, as E2B's builds end with it,
// update-ca-certificates as root when the steps changed
// /usr/local/share/ca-certificates (private roots only, and where the root
// has the command: without private roots a sandbox's /etc is the host's, so
// the bundle stays the host's; ca_trust.go); then startCmd, waiting for readyCmd
// (Options.ReadyTimeout; E2B's "sleep 20" when a start command has none),
// logged with E2B's template manager's lines ("Running start command: …",
// "[start] [stdout]: …", "Waiting for template to be ready: …", the ready
// command's output and "Template is not ready: …" at debug level, "Template
// is ready"). Step output becomes log entries with the step
// number (stderr as errors); a failing step fails the build with E2B's
// reason (message, step, the step's warn/error lines). Each step's result is
// cached under the hash of its inputs chained to the previous step's; force
// on a step or on the build skips the cache. A tag resolves to the newest
// ready build it was given to, so a running rebuild never takes a template
// away from new sandboxes. Sandboxes from a build get its files, env and
// workdir, and its start command, answering create once the ready command
// succeeds (or its timeout passes). Commands run as the step's user (its
// USER, or the user a RUN names) with that user's IDs where the emulator
// can give them (see the emulator package); COPY gives what it copies to its
// owner argument or the step's user.
//
// # Finished builds and images
//
// Each finished build is immutable: with private roots its layers (one per
// step that ran, the upper directory of a sandbox that ran just that step)
// are shared with the step cache and never change; in the fallback layout
// it is a copy of the build sandbox's directories. fromImage looks the name
// up in Options.ImageStore (a directory of root filesystems or tar archives
// per name, see controlplane.findImage); a found image replaces the host base root
// (under the same skeleton directories). E2B's base image (e2bdev/base) is
// the host base root, as the base template is. Any other image the store
// lacks (or any image at all without private roots) fails the build at its
// base step with a reason naming the image, -image-store and
// -host-root-images, unless Options.HostRootImages names it (or holds "*"):
// then it builds on the host base root, with a warning in the build log.
// The build records the name either way. With a DataDir of the caller's, templates, builds, tags and
// the step cache are saved in DataDir/templates/state.json and restored by
// the next start, so killing the emulator loses no finished build.
package builder
