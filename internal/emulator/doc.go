// Package emulator is a local test double of E2B: one loopback HTTP server that
// answers E2B's control-plane API (sandboxes, snapshots, templates, metrics,
// logs) and the in-sandbox daemon envd (files, Connect process and filesystem
// RPCs), closely enough that E2B's official SDKs and this repository's client
// work against it unmodified.
//
// It is a test double, not a security boundary. Sandbox commands run for real
// on the host, as the user running the emulator (root in CI), through
// `bash -l -c` exactly as envd runs them.
//
// # Filesystem layout
//
// Every sandbox owns a directory under Options.DataDir with three subtrees:
// home (seen as /home/user), tmp (seen as /tmp) and root (every other
// absolute path). The files API and the Filesystem RPCs map /home/user/** and
// /tmp/** to the first two, relative paths and "~" resolve under /home/user,
// and any other absolute path (for example /opt/x) is kept inside the
// sandbox's root subtree so the host is never written outside DataDir.
//
// With Isolation "auto" on Linux as root, each command starts in a private
// mount namespace where the sandbox's home and tmp directories are
// bind-mounted onto /home/user and /tmp, so commands and the files API agree
// on those two trees and two sandboxes never see each other's files there.
// Commands see the host for every other path (not the sandbox's root
// subtree). Without namespaces (Isolation "none", not root, or not Linux) the
// emulator logs one line and falls back: HOME, TMPDIR and the default working
// directory point at the sandbox's own directories instead of /home/user and
// /tmp, and a cwd under /home/user or /tmp is rewritten the same way, so
// commands that spell out /home/user literally see the host path instead.
//
// # Lifecycle
//
// Timeouts are real timers. Pause sends SIGSTOP to every process of the
// sandbox and resume (connect) sends SIGCONT, so processes keep their pids.
// Expiry kills the sandbox (SIGKILL to all its processes, open envd streams
// are dropped without an end-stream frame) or pauses it when autoPause was
// requested.
//
// # Routing
//
// One listener serves everything: requests that carry E2b-Sandbox-Id, or
// whose path is /files, /files/compose, /envs, /metrics, /process.Process/* or
// /filesystem.Filesystem/*, go to envd; /_emulator/* is the admin API; the
// rest is the control plane. Options.EnvdAddr adds an envd-only listener.
// Header-less /files requests (signed URLs) go to the secure sandbox whose
// access token validates the signature. Envd requests for unknown, paused or
// killed sandboxes get E2B's edge 502; a paused sandbox with autoResume is
// resumed by its first envd request.
//
// Control-plane routes (their ServeMux patterns are the counter and fault
// route keys): POST /sandboxes, POST /v2/sandboxes, GET /sandboxes,
// GET /v2/sandboxes, GET|DELETE /sandboxes/{id},
// POST /sandboxes/{id}/{timeout,refreshes,pause,resume,connect,fork,snapshots},
// POST /v2/sandboxes/{id}/connect, PUT /sandboxes/{id}/network,
// GET /sandboxes/{id}/metrics, GET /sandboxes/metrics, GET /sandboxes/{id}/logs,
// GET /v2/sandboxes/{id}/logs, GET /snapshots, GET /v2/templates,
// GET /templates, GET|DELETE /templates/{id}, GET /templates/aliases/{alias},
// POST /v3/templates, GET /templates/{id}/files/{hash},
// POST /v2/templates/{id}/builds/{buildID},
// GET /templates/{id}/builds/{buildID}/{status,logs}, PATCH /v2/templates/{id},
// PATCH /templates/{id}, POST|DELETE /templates/tags,
// GET /templates/{id}/{sub} (tags), and GET /health (no key). File contexts
// are PUT to the signed upload URL the files route returns
// (/_upload/template-files/{hash}, no key; route key
// "PUT /_upload/template-files/{hash}").
//
// # Template builds
//
// POST /v3/templates registers a waiting build of a template named
// "local-team/<name>" with its tags (default when none). Starting it runs the
// build in the background, in a sandbox of its own: the base (fromTemplate:
// any built template or snapshot, by name, name:tag or name:buildID;
// fromImage: the base root filesystem, with a build-log line saying so),
// then the steps in order: RUN (bash -l, in the workdir, with the ENV
// values), COPY from the uploaded archive, ENV (values expanded like E2B's
// envsubst), WORKDIR, USER; then startCmd, waiting for readyCmd
// (Options.ReadyTimeout). Step output becomes log entries with the step
// number (stderr as errors); a failing step fails the build with E2B's
// reason (message, step, the step's warn/error lines). Each step's result is
// cached under the hash of its inputs chained to the previous step's; force
// on a step or on the build skips the cache. A tag resolves to the newest
// ready build it was given to, so a running rebuild never takes a template
// away from new sandboxes. Sandboxes from a build get its files, env and
// workdir, and its start command, answering create once the ready command
// succeeds (or its timeout passes). Commands run as the emulator's own user;
// USER and a RUN's user set USER/LOGNAME and the home directory only. Envd route keys are "envd METHOD /path" for REST
// ("envd POST /files") and "envd /process.Process/Start" for RPCs.
//
// Admin API (no API key, never faulted, not counted): PUT|GET|DELETE
// /_emulator/faults (Faults JSON; latency in nanoseconds or "250ms"),
// GET|DELETE /_emulator/counters, POST /_emulator/templates (TemplateSeed
// JSON), POST /_emulator/sandboxes/{id}/expire.
//
// # Differences from E2B worth knowing
//
// Sandboxes created through POST /v2/sandboxes are secure unless the body
// says secure=false (SDK 2.51 has no secure option), and both /v2 create and
// connect default the timeout to 300 s (legacy create: 15 s). Fork and
// snapshots copy files only; processes are not cloned. The base template's
// ID is E2B's ("rki5dems9wqfm4r03t7g", alias "base"); snapshots live in the
// team namespace "local-team". PTY requests run without a real terminal.
package emulator
