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
// It imports envd, state (the template and build a record names), netrules
// and ids of the emulator, nothing above.
package sandboxes
