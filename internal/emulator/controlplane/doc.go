// Package controlplane is E2B's control plane in the emulator: the REST API
// of sandboxes (create, connect, pause, resume, timeout, network, fork,
// snapshots, metrics, logs), templates and builds (with the builder's backend,
// image lookup and file-context uploads), tags, volumes, secrets, lifecycle
// events and webhooks, and team metrics. Its handlers are thin: E2B's own
// checks and wording here, records in the sandbox registry and the store.
// What E2B's spec refuses (types, bounds, lengths, patterns, enums, required
// fields) ValidateRequest refuses first, against the spec the emulator
// serves (validation.go).
//
// It also decides, for the sandbox proxy, what E2B's API decides for traffic to
// a sandbox's port (Traffic): a sandbox that is gone, or paused and not resumed by
// traffic, is not found; a paused one resumes only for the token it wants, for
// its create's timeout but at least E2B's 300 s; allowPublicTraffic false wants
// the traffic access token on every port but envd's.
//
// What the emulator around it does (the concurrency cap, counters, its own
// URL) it gets as functions in a Config, never as a pointer to the server;
// the API key, faults and rate limits are applied before a request reaches
// it.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
//
// # Routes
//
// Control-plane routes (their ServeMux patterns are the counter and fault
// route keys): POST /sandboxes, POST /v2/sandboxes, GET /sandboxes,
// GET /v2/sandboxes, GET|DELETE /sandboxes/{id},
// POST /sandboxes/{id}/{timeout,refreshes,pause,resume,connect,fork,snapshots},
// POST /v2/sandboxes/{id}/{connect,fork}, PUT /sandboxes/{id}/network,
// GET /sandboxes/{id}/metrics, GET /sandboxes/metrics, GET /sandboxes/{id}/logs,
// GET /v2/sandboxes/{id}/logs, GET /snapshots, GET /v2/templates,
// GET /templates, GET|DELETE /templates/{id}, GET /templates/{id}/{sub}
// (/templates/aliases/{alias} and /templates/{id}/tags), POST /v3/templates,
// GET /templates/{id}/files/{hash}, POST /v2/templates/{id}/builds/{buildID},
// GET /templates/{id}/builds/{buildID}/{status,logs}, PATCH /v2/templates/{id},
// PATCH /templates/{id}, POST|DELETE /templates/tags, E2B's deprecated
// Dockerfile builds POST /templates, POST /templates/{id} and POST
// /templates/{id}/builds/{buildID} with GET /teams (access token only,
// template_legacy.go), the volume, secret,
// event, webhook and team-metric routes below, and GET /health (no key). File contexts are PUT to the signed upload URL the files route
// returns (/_upload/template-files/{hash}, no key; route key
// "PUT /_upload/template-files/{hash}").
//
// # Teams and callers
//
// A request acts for the one team, TeamID, with its API key (X-API-Key) or,
// on the operations E2B's spec opens to it, with its one user's access token
// (Authorization: Bearer sk_e2b_...). Which scheme an operation takes is
// read from the spec (AuthSchemes): the access token only where E2B's
// SDK-side spec, the API server's at e2b-dev/infra 54693ff, lists
// AccessTokenAuth (the deprecated Dockerfile builds and GET /teams take it
// alone; the template lists, get/delete/update, build status and logs and
// file links take either; the newest spec dropped the scheme), the API key
// everywhere else, never one for the other. The deprecated teamID query
// parameter of GET /templates and GET /v2/templates, and the teamID of a
// Dockerfile build, must name the team: with the API key another team
// answers E2B's 400 "Team ID param mismatch with the API key", with the
// access token 403 "You are not allowed to access this team" (caller.go).
//
// # v1 and v2 sandbox routes
//
// E2B's newest spec marks POST /sandboxes, POST /sandboxes/{id}/connect and
// POST /sandboxes/{id}/fork deprecated in favour of their /v2 routes, which
// differ thus: v2 create has no secure field (always secured) and a timeout
// of 1 s or more, 300 by default (v1: 15); v2 connect takes no body or an
// optional timeout (300 by default, the end only ever extended) and memory;
// v2 fork's count is capped per team (Config.ForkTeamCap, 20 by default;
// more answers 400, nothing forked), its timeout defaults to 300, and
// memory=false forks the filesystem only. The emulator serves both sets;
// Config.SandboxRoutesV1Off or SandboxRoutesV2Off (the command's
// -sandbox-routes-v1-off and -sandbox-routes-v2-off) switch one off, and its
// routes then answer 404 as routes E2B does not know.
//
// # Snapshots
//
// A snapshot is a build of a snapshot template that gets only the tag its
// name carries ("name:tag"; the default tag without one), as in E2B: taking
// "name:v2" leaves "name:v1" and the default tag where they were. GET
// /snapshots lists one entry per tag ("<name or ID>:<tag>"), its sandboxID
// filter matches the sandbox each build was taken from, and its name filter
// with a tag keeps that tag only. DELETE /templates/tags removes tags (never
// the default one) and keeps the builds; DELETE /templates/{id} removes the
// whole template whatever tag the ID carries.
//
// # Volumes
//
// POST|GET /volumes, GET|DELETE /volumes/{id} keep each volume under
// <data dir>/volumes/<id> (a record and a data directory), so volumes
// survive sandbox kills and, with a fixed data dir, restarts. Names follow
// the spec (^[a-zA-Z0-9_-]+$, unique; a duplicate answers 400). The token is
// an HS256 JWT signed with a per-volume key and is accepted as the bearer of
// the volume-content API (openapi-volumecontent.yml), served on the API
// listener under /volumecontent/{id}/{path,dir,file}; its paths are relative
// to the volume root and resolved beneath it (os.Root): a symbolic link a
// sandbox planted is followed while it stays inside the volume, and a path a
// link leads out of answers 400 (a guess: E2B documents no answer). Lists
// never descend into links. Choices where the spec is silent:
// an upload or mkdir whose parent is missing answers 404 unless force=true
// (which creates the parents), an upload replaces an existing file, and
// DELETE /volumes/{id} answers 409 naming the sandboxes while a running or
// paused sandbox mounts the volume (E2B documents no answer for that case).
//
// A create's volumeMounts (name → absolute path, not /, each path once)
// mount the volume's directory into the sandbox before it boots: with a
// private root it is bind-mounted at the path inside the root, in the root's
// mount namespace (envd.rootMountScript; the mount point is made inside the root,
// an empty directory in its layer). Without private roots but with
// namespaces, each command's namespace bind-mounts it (envd.volumeMountScript;
// mounts inside /home/user and /tmp go onto the sandbox's own mount point,
// which the recursive binds carry, mount points elsewhere are created on the
// host as empty directories). Without namespaces the mount point in the sandbox's own
// storage is a symlink to the volume, reached like the home directory there
// (through $HOME, $TMPDIR or a cwd; a literal path outside those sees the
// host). The files API maps mount paths to the volume in both modes.
// Snapshots and forks never copy a volume's files; a fork mounts its source's
// volumes again, a sandbox started from a snapshot only those its create asks
// for.
//
// # Secrets
//
// /secrets and /secrets/{id} (ID or canonical lower-case name) keep secrets
// in memory: every write appends a version, no answer carries a value. The
// egress proxy (package egress) fills them into the headers a sandbox's
// network rules set; network rules and egressProxy are stored with the
// sandbox, replaced as a whole by PUT .../network, and GET /sandboxes/{id}
// returns them without the proxy's password (E2B refuses proxy addresses in
// private ranges; the emulator accepts them, so tests can run one locally).
// Build sandboxes get the proxy too, with credentials it accepts while the
// build sandbox lives, and go out with no allow or deny list and no rules,
// as E2B's builds reach the internet (build_egress.go).
//
// # MCP gateway
//
// E2B's public mcp-gateway template is seeded beside base: base plus a
// stand-in for the gateway, as a layer of its own over base's root (private
// roots) or in the sandbox's root directory, put on PATH and exported as a
// bash function since a login shell resets PATH (shared roots). Templates
// built from it and its snapshots keep it; base and every other template have
// no mcp-gateway, as on E2B, so E2B's SDK fails to start a gateway in a
// sandbox from base with mcp and kills it. E2B's SDK (and the provider) start
// the gateway after a create with mcp by running `mcp-gateway --config <json>`
// as root with GATEWAY_ACCESS_TOKEN; the stand-in (package sandboxos, mcp_gateway.sh)
// keeps the token in the sandbox's /etc/mcp-gateway/.token and the
// configuration beside it, and serves nothing on port 50005.
//
// # Lifecycle events and webhooks
//
// Every transition is recorded (sandbox.lifecycle.created, updated on a
// timeout or network change, paused, resumed, killed, checkpointed on a
// snapshot; a fork's created carries source_sandbox_id) in the version-v2
// camelCase format of E2B's events API, the last 10,000 of them, served by
// GET /events/sandboxes[/{id}] with offset, limit (default 10, at most 100),
// orderAsc (default newest first) and repeated types. /events/webhooks
// (POST, GET, and GET|PATCH|DELETE /{id}) registers webhooks: url, events
// and signatureSecret are required on create, enabled defaults to true, a
// PATCH replaces the fields it names, no answer carries the secret, DELETE
// answers 200. Deliveries are POSTs of the same event JSON with E2B's
// headers (e2b-webhook-id, e2b-delivery-id new for every attempt,
// e2b-signature-version v1, e2b-signature = unpadded base64 of
// sha256(secret + body)); an attempt that fails (no 2xx within 10 s) is
// retried up to 3 times, Options.WebhookRetryInterval (10 s) apart, while
// the webhook stays enabled. Two workers deliver from a queue of 1,024 that
// the API never waits on: a full queue drops the delivery and counts it in
// Counters.WebhookDrops. Arrival order is not guaranteed.
//
// Every attempt is kept (the last 5,000 per webhook, gone with the webhook)
// with E2B's fields: status success|failed, errorClass (http_error for a
// non-2xx answer, dns_error, timeout, transport_error, request_error,
// canceled; errorMessage only where the answer's body says nothing), the
// answer's status, headers and first 4 KiB of body, and the request
// headers as JSON with e2b-signature redacted. GET
// /events/webhooks/{id}/deliveries groups them by event, pages by event
// (limit 1..100, default 25; nextCursor; newest first unless orderAsc) and
// filters attempts by start/end, deliveryStatus and eventType (comma
// lists). GET /events/webhooks/{id}/stats counts them over [start, end)
// (default the last 24 h) overall and per bucket (1 min to 1 day wide, at
// most 60 buckets), with durations in ms.
//
// # Team metrics and other create options
//
// The sampler records the team's figures every 5 s (a day is kept): the
// running sandboxes and the starts per second since the previous sample.
// /teams/{teamID}/metrics and /metrics/max answer them for the one team,
// Server.TeamID (00000000-0000-0000-0000-000000000000); other team IDs get
// 403, the range defaults to the last hour, and a start or end after
// 2299-12-31 (the end of E2B's metrics store) gets E2B's 400. mcp (an object) and iam (tokens
// with audience and tokenType) are validated and kept with the sandbox: no
// MCP gateway runs and no workload token is issued. autoPauseMemory=false
// (only with autoPause, never with autoResume) makes the auto-pause kill the
// processes and keep the files.
package controlplane
