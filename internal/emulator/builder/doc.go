// Package builder runs template builds: the base (a built template or an
// image), then each step in order (RUN, COPY, ENV, WORKDIR, USER) in a
// build sandbox of its own, then the start and ready commands. Every
// finished step is kept in the step cache under the hash of its inputs
// chained to the previous step's, as E2B's layers are; a finished build's
// files never change.
//
// It keeps the build's record (status, log, reason, result) through the
// state store's operations and reaches everything else through Host: the
// sandboxes the steps run in, the image store and the uploaded file
// archives. It holds no pointer to the server.
//
// Imports state and hostfs of the emulator.
package builder
