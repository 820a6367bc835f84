// Package controlplane is E2B's control plane in the emulator: the REST API
// of sandboxes (create, connect, pause, resume, timeout, network, fork,
// snapshots, metrics, logs), templates and builds (with the builder's host,
// image lookup and file-context uploads), tags, volumes, secrets, lifecycle
// events and webhooks, and team metrics. Its handlers are thin: validation
// and E2B's wording here, records in the sandbox registry and the store.
//
// What the emulator around it does (the concurrency cap, counters, its own
// URL) it gets as functions in a Config, never as a pointer to the server;
// the API key, faults and rate limits are applied before a request reaches
// it. It imports sandboxes, envd, builder, volumeapi, delivery, state,
// sandboxos, netrules, hostfs, httpjson and ids of the emulator.
package controlplane
