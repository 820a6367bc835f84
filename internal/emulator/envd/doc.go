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
// emulator in a Host (logging, the egress proxy's variables), never a
// pointer to it.
//
// It imports state (the default sizes), sandboxos, hostfs, connectrpc,
// httpjson and ids of the emulator, nothing above.
package envd
