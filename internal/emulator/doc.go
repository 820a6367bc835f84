// Package emulator is a local test double of E2B: one loopback HTTP server that
// answers E2B's control-plane API (sandboxes, snapshots, templates, volumes,
// secrets, webhooks, metrics, logs) and the in-sandbox daemon envd (files,
// Connect process and filesystem RPCs), closely enough that E2B's official SDKs
// and this repository's client work against it unmodified.
//
// It is a test double, not a security boundary. Sandbox commands run for
// real on the host, as the user running the emulator (root in CI), through
// `bash -l -c` exactly as envd runs them; they can read the host's files and
// see its processes and network. Isolation keeps sandboxes from disturbing
// the host and each other by accident, nothing more. What differs from E2B is
// listed in cmd/e2b-emulator/README.md.
//
// The emulator follows E2B's published specs, carried verbatim in
// internal/e2bspec: it serves the newest control-plane spec
// (internal/e2bspec/newest/openapi.yml) and validates every control-plane
// request against it before any handler runs, as E2B's API server does
// (kin-openapi's openapi3filter): a body, path or query parameter the spec
// refuses gets E2B's 400, {"code":400,"message":"validation error: error in
// openapi3filter.RequestError: ..."}. envd's requests are not validated
// that way, as envd does not; its behaviour follows
// internal/e2bspec/runtime/envd/envd.yaml.
//
// This package starts the emulator (Start, Options, Server) and routes each
// request (http.go: the sandbox proxy, the admin API or the control plane),
// checks the credentials each control-plane operation takes (the API key, or
// the user's access token where E2B's spec opens the operation to it:
// control.go), validates control-plane requests, applies faults (faults.go),
// limits (limits.go) and counters, serves every port of a sandbox as E2B's
// proxy does (envd.go: envd, or the sandbox's own server, after the control
// plane's Traffic decides), and samples the team's figures.
// Everything else lives one floor down, each package documenting the part it
// implements:
//
//	controlplane  E2B's REST API: sandboxes, snapshots, templates and builds,
//	              tags, volumes, secrets, events and webhooks, metrics, logs,
//	              the mcp-gateway template
//	sandboxes     the registry of live sandboxes: records, lifecycle, timers
//	envd          the daemon in each sandbox and its machine: files,
//	              processes, terminals, watches, identity, logs and samples
//	builder       template builds: base, steps, the step cache, start and
//	              ready commands, images
//	volumeapi     E2B's volume-content API, resolved beneath each volume
//	delivery      webhook deliveries: queue, workers, retries, signatures
//	store         templates, builds, tags, the step cache, secrets, events,
//	              webhooks, team samples, volumes
//	sandboxos     private roots and the shared layout, host processes,
//	              watches, the host network, users and sudo, the MCP stand-in
//	egress        the egress proxy: admission, network rules and what they
//	              fill, SOCKS5
//	portproxy     the sandbox proxy's side: which sandbox and port a request
//	              names, forwarding to it, E2B's proxy answers (JSON and pages)
//	hostfs        copying trees, extended attributes, file metadata
//	connectrpc    Connect framing and errors for envd's RPCs; the other
//	              codecs and protocols (proto, gRPC, gRPC-Web) transcoded
//	httpjson      JSON and error bodies, dropped connections
//	ids           random IDs and UUIDs
//	emulatortest  the harness every emulator test shares (tests only)
//
// Dependencies run one way, downwards: no package below holds a pointer to
// the Server or imports anything above it. The allowed imports are written
// once, in TestPackagesImportOnlyDownwards (layering_test.go). Each store keeps
// its own lock and nothing outside it takes that lock: the registry
// (sandboxes) and the store (store) for records, and the server's counters,
// faults and limits. The registry may call the store and a machine while it
// holds its lock, never the reverse. Wire shapes are named after the spec's
// schema with a JSON suffix (SandboxDetailJSON, VolumeEntryStatJSON).
//
// Tests sit beside the code they test; those of the routing, faults, limits,
// the admin API and of whole traffic against E2B's published specs stay
// here. Tests of other packages that need a running emulator are external
// test packages (package x_test) over emulatortest.
package emulator
