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
package emulator
