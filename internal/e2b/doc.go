// Package e2b is a Go client for E2B's control-plane API and for envd, the
// daemon inside every sandbox. It knows nothing about Terraform and can be
// used on its own.
//
// Retry policy (see retry.go for the code):
//   - 429 is retried for every call, honoring Retry-After (capped by
//     Config.RetryWaitMax), except WriteFile, whose reader cannot be replayed.
//   - 5xx and connection errors are retried only for idempotent calls: all
//     GETs, PUT network, DELETE sandbox/template, set-timeout, connect, pause
//     (a 409 on a retried pause means the first attempt paused it) and the
//     read-only or idempotent envd RPCs (Stat, ListDir, List, MakeDir, Remove,
//     Process/Connect, health, file download before the body streams).
//   - Process/Start is retried on 5xx answers (an error status means no
//     process was started) but not on connection errors. Exec settles a lost
//     start by the process's tag: it attaches to the process if it runs, and
//     starts it once more if not.
//   - WriteFile is never retried (its reader is consumed); WriteFileFrom
//     re-opens the content and sends it again after a connection error, 429
//     or 5xx, since writing a file twice has the effect of writing it once.
//   - Create, fork, snapshot create, Move, SendInput, CloseStdin and
//     SendSignal are not retried on 5xx or connection errors.
//     Create with an IdempotencyToken instead looks the sandbox up by that
//     token when the outcome is unknown and only re-sends when none exists.
//   - envd 502 (sandbox not running) is never retried.
package e2b
