// Package portproxy is the emulator's stand-in for E2B's sandbox proxy, the server behind
// `<port>-<sandbox id>.<domain>`: it reads which sandbox and port a request is for (the host
// name, or the E2b-Sandbox-Id and E2b-Sandbox-Port headers the SDKs send to a sandbox URL),
// forwards a request to a port of a sandbox, and writes the proxy's own answers (sandbox not
// found, port not open, traffic access token missing or invalid, resume refused, a route
// reserved for E2B's control plane) as E2B writes them: JSON for programs, an HTML page for a
// browser.
//
// It decides nothing about sandboxes: which sandbox exists, which token it wants and whether a
// paused one resumes are the control plane's rules (package controlplane), and the server (the
// root package) asks it before it forwards.
//
// Sandboxes share the host's network, so a sandbox's port p is 127.0.0.1:p. The server forwards
// only when one of the sandbox's own processes listens there (envd.Machine.ListensOn), so a
// sandbox URL never leads to the host's services or another sandbox's; otherwise, and when the
// connection is refused, the answer is E2B's 502 "port is not open". Requests are forwarded with their own Host,
// or the sandbox's network.maskRequestHost with ${PORT} filled in, and never with the API key.
// Upgrades (websockets) pass through.
//
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
package portproxy
