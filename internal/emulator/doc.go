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
// Requests as root (the username query or Basic auth user) resolve relative
// paths against /root instead, which every sandbox has.
//
// Files keep what envd keeps on them: upload metadata as user.e2b.<key>
// extended attributes (so metadata set with setfattr inside the sandbox
// shows in Stat and ListDir, and an upload replaces the set), and the owner
// envd gave them: what the files API creates as root belongs to root, the
// rest to user. Commands all run as the emulator's own user, so the owner is
// an attribute (user.e2b-emulator.owner), not the file's uid. A symlink
// reports its fully resolved target as a sandbox path. A file system without
// user extended attributes keeps neither metadata nor owners, as on envd.
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
// The start event of a command is sent once the command itself runs, after
// the namespace setup, as envd sends it once its process exists.
//
// PTY commands run on a real pseudo-terminal in their own session; a resize
// (Process/Update) sets its size and so reaches the command as SIGWINCH.
// WatchDir and the watcher RPCs use inotify as envd does (create, write,
// chmod, rename, remove as they happen); a recursive watch also watches
// folders created after it started and reports what they held before it
// could. Elsewhere than Linux they poll every 200 ms.
//
// # Lifecycle
//
// Timeouts are real timers. Pause sends SIGSTOP to every process of the
// sandbox and resume (connect) sends SIGCONT, so processes keep their pids
// and a command that ended before the pause stays ended. Expiry kills the
// sandbox (SIGKILL to all its processes, open envd streams are dropped
// without an end-stream frame) or pauses it when autoPause was requested.
//
// A pause without memory (memory false, or autoPauseMemory false at expiry)
// kills the processes instead, and the resume is a new boot: only the files
// remain, envd knows no process or watcher of the previous boot, and the
// sandbox's boot ID, which commands read at /proc/sys/kernel/random/boot_id
// when mount namespaces are in use, changes. A memory pause keeps it.
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
// GET /templates, GET|DELETE /templates/{id}, GET /templates/{id}/{sub}
// (/templates/aliases/{alias} and /templates/{id}/tags), DELETE /templates/tags,
// and GET /health (no key). Envd route keys are "envd METHOD /path" for REST
// ("envd POST /files") and "envd /process.Process/Start" for RPCs.
//
// Admin API (no API key, never faulted, not counted; a POST or PUT must be
// application/json, and with Options.AdminToken every request needs
// "Authorization: Bearer <token>"): PUT|GET|DELETE
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
// team namespace "local-team". Commands run as the emulator's user whatever
// user the request names (HOME stays /home/user), and there is no sudo unless
// the host has one. Without mount namespaces commands read the host's boot ID.
package emulator
