// Package emulator is a local test double of E2B: one loopback HTTP server that
// answers E2B's control-plane API (sandboxes, snapshots, templates, metrics,
// logs) and the in-sandbox daemon envd (files, Connect process and filesystem
// RPCs), closely enough that E2B's official SDKs and this repository's client
// work against it unmodified.
//
// It is a test double, not a security boundary. Sandbox commands run for
// real on the host, as the user running the emulator (root in CI), through
// `bash -l -c` exactly as envd runs them; they can read the host's files and
// see its processes and network. Isolation below keeps sandboxes from
// disturbing the host and each other by accident, nothing more.
//
// # Layout
//
// Dependencies run one way, downwards (each package names what it may
// import); no package below holds a pointer to the Server or imports
// anything above it:
//
//	emulator      Start, Options, Server: listeners and routing, the API
//	              key, admin, faults, limits, counters, envd's routing
//	              (which sandbox, auto-resume), the sampler
//	                imports every package below
//	controlplane  E2B's REST API: sandboxes, snapshots, templates and
//	              builds, tags, volumes, secrets, events and webhooks,
//	              metrics and logs; the builder's host, images and file
//	              contexts; what the emulator around it does (limits,
//	              counters) it gets as functions in a Config
//	                imports sandboxes and every package below it
//	sandboxes     the registry of live sandboxes: each one's record (state,
//	              timeout, lifecycle options, network, metadata, mounts),
//	              its machine and its TTL timer, behind one lock of its own;
//	              lifecycle operations that return copies
//	                imports envd, state, netrules, ids
//	envd          the daemon in each sandbox and its machine: files, processes,
//	              pty, watchers, the files routes and the Connect RPCs, the
//	              sandbox's log and samples; the server through a Host
//	                imports state, sandboxos, hostfs, connectrpc, httpjson, ids
//	builder       template builds: base, steps, start and ready commands, the
//	              step cache's layers; sandboxes through a Host interface
//	                imports state, sandboxos, hostfs, ids
//	volumeapi     E2B's volume-content API over the volumes' directories
//	                imports state, sandboxos, httpjson
//	delivery      webhook deliveries: queue, workers, retries, signatures
//	                imports nothing of the emulator
//	state         templates, builds, tags, the step cache, secrets, lifecycle
//	              events, webhooks, team samples, volumes: one lock of its
//	              own, operations that return copies
//	                imports nothing of the emulator
//	sandboxos     private roots, host processes and signals, watches, sudo,
//	              the egress proxy
//	                imports hostfs, netrules
//	netrules      E2B's egress model without state: admission, rule matching,
//	              placeholders, a SOCKS5 dialer
//	hostfs        copying trees, writing files, extended attributes, file
//	              metadata, owners
//	connectrpc    Connect framing and errors for envd's RPCs
//	httpjson      JSON bodies and error bodies of the HTTP APIs, dropped
//	              connections
//	ids           random IDs and UUIDs
//	                (these five import nothing of the emulator)
//
// Each store keeps its own lock and nothing outside it takes that lock: the
// registry (sandboxes) and the store (state) for records, and the server's
// counters, faults and limits. The registry may call the store and a machine
// while it holds its lock (events, a create's checks), never the reverse.
// TestPackagesImportOnlyDownwards checks the imports above.
// Wire shapes (request and answer bodies) are named xJSON.
//
// # Filesystem layout
//
// With Isolation "auto" (or "userns") on Linux, every sandbox has its own
// root filesystem: an overlay mounted in a mount namespace of its own (as
// root; otherwise, or with "userns", inside a user namespace that maps the
// emulator's user to root), held by a small holder process that lives as
// long as the sandbox (and dies with the emulator). The overlay's upper
// directory is the sandbox's own layer, DataDir/sandboxes/<id>/upper; below
// it lie the layers of the build it started from, newest first, and a base
// root. The host base root is a skeleton made by the emulator (fresh
// /home/user, /tmp, /root, /run and mount points, the host's relative
// top-level links such as /bin -> usr/bin, an /etc adding the "user"
// account and copies of hosts and resolv.conf) plus the host's /usr, /etc,
// /opt, /var and /srv, each as the lowest, read-only layer of a nested
// overlay whose upper directory is inside the sandbox's layer. So bash, apt
// and the host's tools exist in every sandbox, and a write anywhere (even
// /usr/local/bin or /etc) lands in the sandbox's layer: nothing is written on
// the host outside DataDir. The host's other top-level directories (/home,
// /root, /work...) are not visible. /proc, /dev and /sys are the host's,
// bind-mounted. Commands enter the namespace with nsenter and chroot into
// the root; the files API and the filesystem RPCs reach the same files
// through /proc/<holder>/root, resolving symlinks inside the sandbox's root
// (an absolute link never leads to the host's files). Snapshots and forks
// copy the sandbox's whole layer (whiteouts included) into a new immutable
// layer under DataDir/layers; the sandboxes started from them stack it on
// the layers their source had.
//
// Where this cannot work (not Linux, Isolation "none", no overlayfs or
// namespaces, nsenter/unshare/chroot missing) the emulator logs one line
// and falls back to the older layout: every sandbox owns a directory under
// DataDir with three subtrees: home (seen as /home/user), tmp (seen as /tmp)
// and root (every other absolute path). The files API and the Filesystem
// RPCs map /home/user/** and /tmp/** to the first two and keep any other
// absolute path (for example /opt/x) inside the root subtree, so the host is
// never written outside DataDir. As root on Linux each command then starts
// in a private mount namespace where the sandbox's home and tmp directories
// are bind-mounted onto /home/user and /tmp, and sees the host for every
// other path; without namespaces HOME, TMPDIR and the default working
// directory point at the sandbox's own directories instead of /home/user and
// /tmp, and a cwd under /home/user or /tmp is rewritten the same way.
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
// rest to user. Commands all run as the emulator's own user, so the owner is
// an attribute (user.e2b-emulator.owner), not the file's uid. A symlink
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
// # Template builds and images
//
// Each finished build is immutable: with private roots its layers (one per
// step that ran, the upper directory of a sandbox that ran just that step)
// are shared with the step cache and never change; in the fallback layout
// it is a copy of the build sandbox's directories. fromImage looks the name
// up in Options.ImageStore (a directory of root filesystems or tar archives
// per name, see controlplane.findImage); a found image replaces the host base root
// (under the same skeleton directories). E2B's base image (e2bdev/base) is
// the host base root, as the base template is. Any other image the store
// lacks (or any image at all without private roots) fails the build at its
// base step with a reason naming the image, -image-store and
// -host-root-images, unless Options.HostRootImages names it (or holds "*"):
// then it builds on the host base root, with a warning in the build log.
// The build records the name either way. With a DataDir of the caller's, templates, builds, tags and
// the step cache are saved in DataDir/templates/state.json and restored by
// the next start, so killing the emulator loses no finished build.
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
// (/templates/aliases/{alias} and /templates/{id}/tags), POST /v3/templates,
// GET /templates/{id}/files/{hash}, POST /v2/templates/{id}/builds/{buildID},
// GET /templates/{id}/builds/{buildID}/{status,logs}, PATCH /v2/templates/{id},
// PATCH /templates/{id}, POST|DELETE /templates/tags, the volume, secret,
// event, webhook and team-metric routes below, and GET /health (no key). File contexts are PUT to the signed upload URL the files route
// returns (/_upload/template-files/{hash}, no key; route key
// "PUT /_upload/template-files/{hash}").
//
// # Template builds
//
// POST /v3/templates registers a waiting build of a template named
// "local-team/<name>" with its tags (default when none). It refuses what
// E2B's API refuses: names outside E2B's rule (no '.'), more than 32 vCPUs or
// an odd number above 1, an odd number of MiB. Starting it runs the
// build in the background, in a sandbox of its own: the base (fromTemplate:
// any built template or snapshot, by name, name:tag or name:buildID;
// fromImage: an image from the store, or the base root filesystem for
// E2B's base image or an image HostRootImages names, with a build-log line
// saying which; any other image fails the build),
// then the steps in order: RUN (bash -l, in the workdir, with the ENV
// values), COPY from the uploaded archive, ENV (values expanded like E2B's
// envsubst), WORKDIR, USER; then startCmd, waiting for readyCmd
// (Options.ReadyTimeout). Step output becomes log entries with the step
// number (stderr as errors); a failing step fails the build with E2B's
// reason (message, step, the step's warn/error lines). Each step's result is
// cached under the hash of its inputs chained to the previous step's; force
// on a step or on the build skips the cache. A tag resolves to the newest
// ready build it was given to, so a running rebuild never takes a template
// away from new sandboxes. Sandboxes from a build get its files, env and
// workdir, and its start command, answering create once the ready command
// succeeds (or its timeout passes). Commands run as the emulator's own user;
// USER and a RUN's user set USER/LOGNAME and the home directory only.
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
// Envd route keys are "envd METHOD /path" for REST
// ("envd POST /files") and "envd /process.Process/Start" for RPCs.
//
// Admin API (no API key, never faulted, not counted; a POST or PUT must be
// application/json, and with Options.AdminToken every request needs
// "Authorization: Bearer <token>"): PUT|GET|DELETE
// /_emulator/faults (Faults JSON; latency in nanoseconds or "250ms";
// loseAnswer with lostAs ["drop","gateway"] carries any control-plane
// request matching routes out in full and then cuts the connection or
// answers a gateway's 504, the lost answer of a request that took effect;
// answerDelay holds the answer of such a request, for interrupts),
// GET|DELETE /_emulator/counters, POST /_emulator/templates (TemplateSeed
// JSON), POST /_emulator/sandboxes/{id}/expire, PUT|GET|DELETE
// /_emulator/limits (Limits JSON) and GET /_emulator/limits/refused.
//
// # Limits
//
// Off by default; Options.Limits, SetLimits, the admin API or the
// command's -max-concurrent-sandboxes, -create-rate, -create-burst and
// -api-rate flags turn them on (see Limits). As in E2B's API: once the API
// key is accepted, a request over a rate gets 429 "Rate limit exceeded"
// with RateLimit-* headers and Retry-After, before it does anything; the
// concurrency cap counts running sandboxes (paused ones hold no place) and
// refuses a create, a resume (connect or resume of a paused sandbox) and
// each fork over it with E2B's 429 message and no Retry-After; a fork asking
// for as many sandboxes as the cap, or more, gets E2B's 400. Not modelled:
// the per-IP rate of sandbox operations (envd), and the cap on a paused
// sandbox's auto-resume by traffic.
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
// # Sandbox identity and logs
//
// Commands get E2B_SANDBOX=true, E2B_SANDBOX_ID, E2B_TEMPLATE_ID and
// E2B_TEAM_ID, as envd gives them, and each boot writes the same values to
// /run/e2b/.<NAME> (envd/identity.go). Sandbox log lines (creation,
// lifecycle, processes) are kept as E2B keeps them: the legacy
// GET /sandboxes/{id}/logs answers each "line" as a flat JSON object of
// level, logger ("process" for process events, a guess from E2B's log
// mapping; "emulator" otherwise), message and the fields, which E2B's CLI
// parses; logEntries and the v2 route carry the same entries structured.
//
// # Network
//
// Sandboxes share the host's network namespace (only mount namespaces
// separate them). So a port a sandbox listens on is the host's port: two
// sandboxes, a sandbox and a template build's start command (a rebuild
// while a sandbox from the previous build still runs it), or a sandbox and
// the host cannot listen on the same one; the second fails with "Address
// already in use". localhost in a sandbox is the host's, every sandbox can
// reach every other's ports and the host's, and a server bound to 0.0.0.0
// is reachable on the host's interfaces. The host reaches a sandbox's
// server at 127.0.0.1:<port> directly; the emulator has no proxy for
// <port>-<sandbox id>.<domain> hosts (envd requests naming another port
// than 49983 answer E2B's 502 "port is not open"). Egress is the host's;
// allowOut, denyOut and allowInternetAccess are enforced only for traffic
// that goes through the egress proxy (below). A network namespace per sandbox would give each its own ports,
// but internet access from it would need either changes to the host's
// network (a veth pair, forwarding and NAT rules) or a user-space stack
// (slirp4netns, pasta), and clients that ignore the egress proxy variables
// would lose the network; so the emulator does not make one. Give servers
// that tests run side by side their port through an env var, and kill a
// sandbox holding a port before rebuilding a template whose start command
// needs it.
//
// # Secrets and egress
//
// /secrets and /secrets/{id} (ID or canonical lower-case name) keep secrets
// in memory: every write appends a version, no answer carries a value. Sandbox
// processes get HTTP_PROXY/HTTPS_PROXY (and the lower-case forms) pointing at
// the emulator's egress proxy, with the sandbox's ID and an egress token as the
// proxy credentials (sandboxos/egress.go), so the proxy applies that sandbox's
// settings, as E2B's egress does:
//   - a destination allowOut does not admit and denyOut blocks is refused (403);
//     names are resolved by the emulator to check denyOut's CIDR blocks;
//   - the network rules (network.rules, replaced as a whole by PUT .../network)
//     set their headers on plain-HTTP requests to the rule's domain (an exact
//     domain first, else the longest matching "*." wildcard; never merged), with
//     ${e2b.secrets.<name>} filled with the secret's current value and
//     ${e2b.identity.tokens.<name>} with a token minted per request for a
//     token the sandbox declares in iam (JWT-shaped but signed with the
//     emulator's own key: nothing can verify it, unlike E2B's JWT-SVIDs);
//   - with egressProxy set, every connection the proxy makes goes through that
//     SOCKS5 proxy, logged in with its username and password (E2B refuses
//     proxy addresses in private ranges; the emulator accepts them, so tests
//     can run one locally). GET /sandboxes/{id} returns rules and the proxy
//     without its password.
//
// That is all it fills, and only there: a secret reaches a request only as the
// value of a header that one of the sandbox's own rules sets, on a plain-HTTP
// request to that rule's domain. A ${e2b.secrets.<name>} a process writes into
// its own request is sent on as written, to any destination. The proxy serves
// sandboxes only: a request without a running sandbox's ID and egress token as
// its proxy credentials is refused (407), so a host process that finds its
// address gets nothing through it. HTTPS goes through CONNECT as an opaque
// tunnel (admission and the SOCKS5 proxy apply): without intercepting TLS its
// headers can be neither read nor set, so rules do not apply to HTTPS here,
// although E2B's egress applies rules to HTTPS. Processes that ignore the proxy
// variables (or set NO_PROXY for the target) reach the network directly with
// none of this; URLs and bodies are never rewritten.
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
// as root with GATEWAY_ACCESS_TOKEN; the stand-in (sandboxos/mcp_gateway.sh)
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
// # Team metrics and other create options
//
// The sampler records the team's figures every 5 s (a day is kept): the
// running sandboxes and the starts per second since the previous sample.
// /teams/{teamID}/metrics and /metrics/max answer them for the one team,
// Server.TeamID (00000000-0000-0000-0000-000000000000); other team IDs get
// 403, the range defaults to the last hour. mcp (an object) and iam (tokens
// with audience and tokenType) are validated and kept with the sandbox: no
// MCP gateway runs and no workload token is issued. autoPauseMemory=false
// (only with autoPause, never with autoResume) makes the auto-pause kill the
// processes and keep the files.
//
// # Differences from E2B worth knowing
//
// Sandboxes created through POST /v2/sandboxes are secure unless the body
// says secure=false (SDK 2.51 has no secure option), and both /v2 create and
// connect default the timeout to 300 s (legacy create: 15 s). Fork and
// snapshots copy files only; processes are not cloned. The base template's
// ID is E2B's ("rki5dems9wqfm4r03t7g", alias "base"); snapshots live in the
// team namespace "local-team". Commands run as the emulator's user whatever
// user the request, a template's USER step or a RUN step names (HOME stays
// /home/user; USER and LOGNAME follow the step); COPY does not chown to
// the step's user. sudo is a stand-in (sandboxos/sudo_shim.go) in sandboxes with a
// private root: it takes sudo's options (-E, --preserve-env, -u, -i, -s,
// -H, VAR=value...) and sets the environment sudo would for the target
// user, then runs the command as the emulator's user, so it cannot change
// `id -u` or file ownership; it hides a host's or image's sudo (which would
// really switch users) but not one a template step installs. The shared
// layout has no sudo unless the host has one. Without mount
// namespaces commands read the host's boot ID. An overlay mount takes at
// most about 100 layers, which bounds how deep templates may stack.
package emulator
