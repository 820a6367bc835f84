// Package sandboxes is the registry of live sandboxes: for each, the record
// E2B's control plane keeps (template and build, state, start and end,
// lifecycle options, network, metadata, mounts), its machine (package envd)
// and its TTL timer. One lock guards them, and nothing outside this package
// takes it; operations (create, fork, timeout, refresh, pause, connect,
// resume, network, snapshot, kill, expire, list) return copies of records.
//
// Machines change state (freeze, thaw, halt, reboot) and events are handed to
// Callbacks.Event with the lock held, so a pause and a resume of a sandbox reach
// its processes, and its events the log, in the order they happened. Machines
// are destroyed by the caller, outside the lock.
//
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
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
// A pause or resume requested through the API lasts Callbacks.TransitionTime,
// as E2B's take time: what another request for the sandbox meets meanwhile is
// described in transition.go.
package sandboxes
