// Package connectrpc is the Connect protocol as envd speaks it, with the
// JSON codec: unary request and answer bodies, the enveloped frames of
// server and bidirectional streams (flushed one by one, ended with an
// end-stream frame) and Connect errors with their HTTP statuses.
//
// It is framing only, the wire under envd's process and filesystem
// services. E2B's control-plane "connect" call (resuming a sandbox) has
// nothing to do with it. It imports nothing of the emulator.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package connectrpc
