// Package envd is the daemon inside each emulated sandbox, and the machine it
// runs on: a Machine holds one sandbox's files (a private root, or the shared
// layout's directories), its processes and pseudo-terminals, its watchers,
// its log and its resource samples, and Serve answers envd's API for it: the
// files routes (with signed URLs), /envs, /metrics and the Connect process
// and filesystem RPCs, behind the access token of a secure sandbox.
//
// What E2B's control plane keeps of a sandbox (state, timeout, network,
// metadata) is not here: the sandbox registry keeps that record and
// freezes, thaws, halts and reboots the machine through its methods; the
// control plane starts and destroys it. A machine gets what it needs of the
// emulator in Settings (logging, the egress proxy's variables), never a
// pointer to it.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
//
// # Codecs and protocols
//
// The process and filesystem RPCs answer what envd's connect-go handlers
// answer by default: Connect with the JSON or the proto codec, gRPC and
// gRPC-Web, gzip-compressed or not (rpc_codecs.go). The handlers here speak
// Connect's JSON; every other form goes through connectrpc's Transcoder,
// built once from E2B's process.proto and filesystem.proto (internal/e2bspec).
//
// # Files, terminals and watches
//
// In both layouts relative paths and "~" resolve under /home/user, or under
// /root for requests as root (the username query or Basic auth user). The
// start event of a command is sent once the command itself runs, after the
// namespace setup, as envd sends it once its process exists.
//
// Files keep what envd keeps on them: upload metadata as user.e2b.<key>
// extended attributes (so metadata set with setfattr inside the sandbox
// shows in Stat and ListDir, and an upload replaces the set), and the owner
// envd gave them: what the files API creates as root belongs to root, the
// rest to user. As envd does, the files API acts as root and then chowns
// what it wrote to the request's user; commands run with the IDs of the user
// their request names (users.go). An emulator that cannot give another
// user's IDs (Settings.SingleUser) keeps the owner as an attribute
// (user.e2b-emulator.owner) instead, and refuses requests for the user it
// cannot be. A symlink
// reports its fully resolved target as a sandbox path. A file system without
// user extended attributes keeps neither metadata nor owners, as on envd.
//
// PTY commands run on a real pseudo-terminal in their own session; a resize
// (Process/Update) sets its size and so reaches the command as SIGWINCH.
// WatchDir and the watcher RPCs use inotify as envd does (create, write,
// chmod, rename, remove as they happen); a recursive watch also watches
// folders created after it started and reports what they held before it
// could. Elsewhere than Linux they poll every 200 ms.
//
// # Sandbox identity and logs
//
// Commands get E2B_SANDBOX=true, E2B_SANDBOX_ID, E2B_TEMPLATE_ID and
// E2B_TEAM_ID, as envd gives them, and each boot writes the same values to
// /run/e2b/.<NAME> (identity.go). With the egress proxy, which answers
// for E2B's hyperloop server, they get E2B_EVENTS_ADDRESS too, and each
// boot names events.e2b.local in a private root's /etc/hosts
// (hyperloop.go). Sandbox log lines (creation,
// lifecycle, processes) are kept as E2B keeps them: the legacy
// GET /sandboxes/{id}/logs answers each "line" as a flat JSON object of
// level, logger ("process" for process events, a guess from E2B's log
// mapping; "emulator" otherwise), message and the fields, which E2B's CLI
// parses; logEntries and the v2 route carry the same entries structured.
package envd
