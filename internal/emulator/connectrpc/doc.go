// Package connectrpc is the Connect protocol as envd speaks it. With the
// JSON codec it is framing by hand: unary request and answer bodies, the
// enveloped frames of server and client streams (flushed one by one, ended
// with an end-stream frame) and Connect errors with their HTTP statuses;
// envd's handlers read and write this form.
//
// Every other codec and protocol that envd's connect-go handlers serve by
// default (Connect with the proto codec, gRPC and gRPC-Web, gzip) is served
// by the Transcoder: connect-go's own handlers, built at start from E2B's
// .proto files, which turn each message into proto-JSON for the JSON handler
// and each of its answers back into a message, so the handlers stay the one
// implementation of each RPC. Messages are bounded alike in every codec:
// MaxMessageSize on the wire, and again once in JSON.
//
// E2B's control-plane "connect" call (resuming a sandbox) has nothing to do
// with it. It imports nothing of the emulator.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package connectrpc
