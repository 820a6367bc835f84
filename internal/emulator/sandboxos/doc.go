// Package sandboxos is what a sandbox is made of on the host: private root
// filesystems (an overlay per sandbox in a mount namespace held by a small
// holder process, base roots over the host's or an image's files, captured
// layers), host processes (signals, process groups, mount namespaces,
// /proc scans for members and metrics), the exec handshake of the
// isolation wrapper, directory watches (inotify on Linux, polling
// elsewhere), the sandbox's users (their IDs, sudo written into every base
// root) and the MCP gateway stand-in of the mcp-gateway template.
//
// It speaks in host paths, pids, cgroups and layer directories. It knows nothing of
// sandboxes as E2B sees them (IDs, templates, state, envd or the REST API)
// and holds no pointer to the server.
// Its allowed imports are listed once, in TestPackagesImportOnlyDownwards
// (internal/emulator/layering_test.go).
//
// # Filesystem layout
//
// With Isolation "auto" (or "userns") on Linux, every sandbox has its own
// root filesystem: an overlay mounted in a mount namespace of its own,
// held by a small holder process that lives as long as the sandbox (and
// dies with the emulator). The overlay's upper
// directory is the sandbox's own layer, DataDir/sandboxes/<id>/upper; below
// it lie the layers of the build it started from, newest first, and a base
// root. The host base root is a skeleton made by the emulator (fresh
// /home/user, /tmp, /root, /run and mount points, the host's relative
// top-level links such as /bin -> usr/bin, an /etc adding the "user"
// account and copies of hosts and resolv.conf, and python -> python3 beside a
// host's python3 that has no python, as E2B's base has both) plus the host's /usr, /etc,
// /opt, /var and /srv, each as the lowest, read-only layer of a nested
// overlay whose upper directory is inside the sandbox's layer. So bash, apt
// and the host's tools exist in every sandbox, and a write anywhere (even
// /usr/local/bin or /etc) lands in the sandbox's layer: nothing is written on
// the host outside DataDir. The host's other top-level directories (/home,
// /root, /work...) are not there. The files API and the filesystem RPCs
// reach the sandbox's files through /proc/<holder>/root, resolving symlinks
// inside the sandbox's root (an absolute link never leads to the host's
// files). Snapshots and forks copy the sandbox's whole layer (whiteouts
// included) into a new immutable layer under DataDir/layers; the sandboxes
// started from them stack it on the layers their source had.
//
// # Isolation
//
// Code in a sandbox is hostile: it may be root and try to reach the host,
// the emulator, the CI job driving it or another sandbox. With a private
// root:
//
//   - Namespaces. The holder is in a user namespace (where the host allows
//     one): as root, the host's IDs 0-65535 map to themselves, so files keep
//     their owners, but a sandbox's capabilities count only in its own
//     namespaces (no mount of the host's, no ptrace or signal of a host
//     process, no device it may open beyond /dev's few). The sandbox's
//     processes run under an init of their own (PID 1 of a PID namespace)
//     in a second mount namespace pivoted into the root: the host's tree
//     is unmounted there, and /proc is a fresh one showing the sandbox's
//     processes alone, so /proc/<pid>/root and /proc/<pid>/environ of the
//     emulator, of the terraform process driving it and of other sandboxes
//     are not there to read. /dev is a small tmpfs (null, zero, full,
//     random, urandom, tty, fuse where the host has one, a devpts and shm of
//     its own); /sys is the host's, read-only, the mounts under it too.
//     Commands enter the init's
//     namespaces with nsenter; mounts the emulator adds under the root later
//     (volumes) reach them through mount propagation.
//   - Capabilities, where the host refuses a user namespace to root (and in
//     the shared layout as root, below). A
//     sandbox's root then shares the host's user namespace, and with it
//     every capability would count on the host. So each command, once
//     inside the sandbox's namespaces and before it runs, passes through
//     the emulator's own executable (capdrop_linux.go), which keeps in its
//     bounding, permitted, effective, inheritable and ambient sets about
//     Docker's default set alone (CHOWN, DAC_OVERRIDE, FOWNER, FSETID,
//     KILL, SETUID, SETGID, SETPCAP, SETFCAP, NET_BIND_SERVICE, SYS_CHROOT,
//     AUDIT_WRITE; not MKNOD, whose node of the host's disk would open in
//     the root, nor NET_RAW, since the network is the host's): no mount,
//     module, ptrace, raw I/O, open_by_handle_at, clock or network
//     administration. The bounding set holds for what
//     sudo gives too, so sudo still makes root, that root; no_new_privs is
//     not set, since sudo needs set-user-ID. The holder and the init do
//     their mounts before, with the emulator's capabilities, and no
//     program of the sandbox's root ever runs with them: the init runs
//     none after pivot_root, the boot ID is bound by the emulator's own
//     code (ShowLine) and the volumes' mount points are made by the
//     emulator, inside the root, and bound by the host's mount. With a user namespace nothing is
//     dropped: capabilities there count only in the sandbox's namespaces,
//     and its root may mount (FUSE, tmpfs) as on E2B.
//   - Limits. Each sandbox has a cgroup (v2, or v1 memory, pids, cpu and
//     cpuacct) under e2b-emulator-<hash of DataDir>: memory up to the
//     template's memoryMB, a process count of one per MiB of it (at least
//     128), CPU quota of its cpuCount. Commands join it before they run, so a
//     fork bomb or a memory hog stops at the sandbox (the kernel's OOM killer
//     picks inside it), and its CPU time is the sandbox's in its metrics.
//   - Lifetime. When the init dies, the kernel kills every process of its
//     PID namespace, whatever session, group or mount namespace it made
//     itself (`setsid unshare -m` included). The init ends when its stdin,
//     a pipe only the emulator holds, closes: when the sandbox is killed and
//     when the emulator exits, kill -9 included. An emulator started again
//     on the same DataDir ends whatever is left in its sandboxes' cgroups
//     and removes them (Cgroups.Sweep).
//   - The admin API needs a token the sandbox has no way to read (neither
//     in its environment nor on a path it can see).
//
// What is not isolated: the network (below), the kernel (a kernel bug is
// the host's), the host's /usr, /etc, /opt, /var and /srv, which every
// sandbox reads (keep secrets out of them: the emulator hides only its
// DataDir when it lies there, under an empty tmpfs, and lays over /etc a
// shadow and gshadow of locked accounts and empty SSH host keys; keep the
// -env-file, which holds the API key, elsewhere), and, as root, the owner of the
// files a sandbox writes (host root: keep DataDir out of other users'
// reach, since a set-user-ID file in a layer is root's). Where the host
// refuses a user namespace to root, the emulator says so at start and a
// sandbox's root is the host's root, with a container's capabilities only
// (below), and where it has no cgroup they have no limits; -help of the
// command lists what this host lacks.
//
// Where private roots cannot work (not Linux, Isolation "none", no
// overlayfs or namespaces, nsenter/unshare missing) the emulator logs one
// line and falls back to the older layout, which isolates none of the
// above: every sandbox owns a directory under
// DataDir with three subtrees: home (seen as /home/user), tmp (seen as /tmp)
// and root (every other absolute path). The files API and the Filesystem
// RPCs map /home/user/** and /tmp/** to the first two and keep any other
// absolute path (for example /opt/x) inside the root subtree. As root on
// Linux each command then starts
// in a private mount namespace where the sandbox's home and tmp directories
// are bind-mounted onto /home/user and /tmp, and sees the host for every
// other path; without namespaces HOME, TMPDIR and the default working
// directory point at the sandbox's own directories instead of /home/user and
// /tmp, and a cwd under /home/user or /tmp is rewritten the same way.
// Run as root, the shared layout's commands (root's included) keep a
// container's capabilities only, as a private root's do without a user
// namespace: once its mounts are made, the wrapper execs the command
// through the same dropper (DropCaps), and so does a command without a
// mount namespace.
//
// # Network
//
// Sandboxes share the host's network namespace (their PID, mount and user
// namespaces are their own). So a port a sandbox listens on is the host's port: two
// sandboxes, a sandbox and a template build's start command (a rebuild
// while a sandbox from the previous build still runs it), or a sandbox and
// the host cannot listen on the same one; the second fails with "Address
// already in use". localhost in a sandbox is the host's, every sandbox can
// reach every other's ports and the host's, and a server bound to 0.0.0.0
// is reachable on the host's interfaces. The host reaches a sandbox's
// server at 127.0.0.1:<port> directly, and through the sandbox URL as on
// E2B: a request for host <port>-<sandbox id>.<domain> (or with the
// E2b-Sandbox-Id and E2b-Sandbox-Port headers) is forwarded to
// 127.0.0.1:<port> (package portproxy) when one of that sandbox's processes
// listens there (ListeningSockets, HoldsSocket); the port of the host or of
// another sandbox answers E2B's 502 "port is not open". Egress is the host's;
// allowOut, denyOut and allowInternetAccess are enforced only for traffic
// that goes through the egress proxy (package egress), which also answers for
// E2B's hyperloop server at 192.0.2.1, unroutable here. A network namespace
// per sandbox would give each its own ports,
// but internet access from it would need either changes to the host's
// network (a veth pair, forwarding and NAT rules) or a user-space stack
// (slirp4netns, pasta), and clients that ignore the egress proxy variables
// would lose the network; so the emulator does not make one. Give servers
// that tests run side by side their port through an env var, and kill a
// sandbox holding a port before rebuilding a template whose start command
// needs it.
//
// # Users
//
// As on E2B, a command runs as the user its request names (users.go reads
// the IDs, the groups and the home from the sandbox's /etc/passwd and
// /etc/group; the host base's accounts are the host's, with E2B's user at
// uid and gid 1000 in place of a host account holding them). With a
// private root, nsenter (without a user namespace, the capability
// dropper) switches to the user's uid and gid once inside the sandbox's
// namespaces (it drops supplementary groups); the shared layout sets them
// with the dropper as root (Credential otherwise), or, in its mount
// namespace wrapper, with the host's setpriv. Only root can give a process another
// user's IDs: an emulator that is not root runs everything as itself (the
// emulator package decides which user requests may then name). /home/user
// of every base skeleton belongs to user.
//
// # sudo
//
// sudo is a copy of the emulator's own executable (WriteSudo), set-user-ID
// root, at /usr/bin/sudo of every base skeleton; run under the name sudo
// it is sudo (sudo_linux.go): for root, user and members of sudo, wheel or
// admin, it takes sudo's options, sets the environment sudo would (reset
// unless -E, HOME, USER, LOGNAME, SHELL, SUDO_*, VAR=value words, -i and -s
// shells) and becomes the target user for real (its uid, gid and groups)
// before it execs the command. The set-user-ID copy lies in DataDir alone
// (keep DataDir out of other users' reach). Where the emulator is not
// root, or an image's root may lack the loader a dynamically linked
// executable needs, sudo is a shell stand-in (sudo_shim.sh) that sets the
// environment only. It hides a host's or image's sudo but not one a
// template step installs. The shared layout has no sudo unless the host
// has one.
//
// # /dev/fuse
//
// Where the host has /dev/fuse and the emulator is root, a node of the same
// device with E2B's guests' mode 0666 is made under DataDir/base/dev (a
// folder closed to the host's other users) and bound at every private
// root's /dev/fuse; the host's own node keeps its mode.
package sandboxos
