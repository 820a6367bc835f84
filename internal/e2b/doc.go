// Package e2b is a Go client for E2B's control-plane API and for envd, the
// daemon inside every sandbox. It knows nothing about Terraform and can be
// used on its own.
//
// Files: one per API object of the control plane (sandboxes*.go,
// snapshots.go, templates*.go, volumes.go, secrets.go, webhooks.go, ...);
// envd*.go for the daemon in each sandbox (envd_connect_rpc.go is the
// Connect protocol its RPCs use, not ConnectSandbox); api.go, client.go,
// errors.go, retry.go and transport.go are shared by both. The local folder
// a template build copies from is read by package buildcontext, which talks
// to no one; this package uploads what it makes.
//
// Sandbox routes: create, connect and fork go through E2B's v2 routes (its
// spec since 76b67e1e; the JS SDK from 2.51.0), and through v1, per route
// and for the client's life, where a server answers v2 as a route it does
// not know (an older self-hosted E2B); see sandbox_routes.go. Secure false
// always takes v1 (v2 always secures); a filesystem-only fork needs v2.
//
// Retry policy (see retry.go for the code):
//   - A control-plane 429 for E2B's API rate is retried for every call but
//     the non-replayable ones: every request of the team waits its turn
//     within a pace learned from E2B's refusals as creates learn theirs
//     (apiRateTransport, a createPacer of its own), honoring Retry-After above
//     E2B's minimum of 1 s, until its context ends (rateRetryBound without a
//     deadline), uncounted by Config.RetryMax; then *RateLimitError. envd's
//     429 is retried RetryMax times, honoring Retry-After (capped by
//     Config.RetryWaitMax), except WriteFile, whose reader cannot be
//     replayed. Sandbox creates and starts at the concurrency limit: below.
//   - 5xx and connection errors are retried only for idempotent calls: all
//     GETs, PUT network, DELETE sandbox/template/tags, set-timeout, connect,
//     pause (a 409 for a paused sandbox is success) and the read-only or
//     idempotent envd RPCs (Stat, ListDir, List, MakeDir, Remove, CloseStdin,
//     Process/Connect, health, file download before the body streams).
//   - On the way to envd only a 5xx that may go away is retried: a proxy's
//     answer, 503 or 504. envd's own error (its JSON for a bad path, a Connect
//     error) says the same every time, and the edge's 502 means the sandbox
//     is not running: neither is retried.
//   - Process/Start and SendInput are retried on 5xx answers (an error status
//     means nothing reached the process) but not on connection errors. Exec
//     settles a lost start by the process's tag: it attaches to the process
//     if it runs, and starts it once more if not. Stdin that cannot be sent
//     is closed early and reported by Exec.
//   - WriteFile is never retried (its reader is consumed); WriteFileFrom
//     re-opens the content and sends it again after a connection error, 429
//     or a 5xx that may go away, since writing a file twice has the effect
//     of writing it once.
//   - Fork, Move and SendSignal are not retried on 5xx or connection errors.
//   - Create tags the sandbox with a create token of its own. When the
//     outcome is unknown it looks the sandbox up by that token until E2B can
//     no longer be finishing the create, and only sends it again when none
//     exists, so one call never makes two sandboxes.
//   - The creates of the other objects E2B keeps (volume, secret, webhook,
//     snapshot) settle an unknown outcome the same way (kept_create.go): the
//     object found is adopted only when it is provably this create's, never
//     one that existed before; otherwise the error names what exists
//     (*ExistsError) or what may (*UnknownCreateError). Each create's comment
//     says how it proves it, and what E2B's API leaves unknowable.
//   - Creates wait their turn within the team's create rate, shared by every
//     Client of the process for the same API and key
//     (sandboxes_create_pacer.go): the rate is stated (Config.CreateRate) or
//     learned from E2B's refusals. A create refused for the rate (429) made
//     nothing and is sent again in a later turn until its context ends,
//     however many times.
//   - A start refused at the team's concurrent-sandbox limit (E2B's 429
//     "maximum number of concurrent E2B sandboxes") is not retried by the
//     transport: a create, a resume (connect) or a fork waits up to
//     Config.SandboxLimitWait for a sandbox this process deletes or pauses,
//     is sent again each time one is gone, and otherwise fails with a
//     *SandboxLimitError (sandboxes_limit.go).
//   - Redirects are never followed: the API key or an access token would go
//     with them to another host.
//
// Not-found: IsNotFound is true only for E2B's own answer that the object
// does not exist (the control plane's 404 naming it, envd's not_found). A
// 404 from a wrong URL, a proxy or an unknown route is an error that names
// the URL, so that callers never take a misconfiguration for a deletion.
package e2b
