// Package sandboxos is what a sandbox is made of on the host: private root
// filesystems (an overlay per sandbox in a mount namespace held by a small
// holder process, base roots over the host's or an image's files, captured
// layers), host processes (signals, process groups, mount namespaces,
// /proc scans for members and metrics), the exec handshake of the
// isolation wrapper, directory watches (inotify on Linux, polling
// elsewhere), the sudo stand-in written into every base root, and the
// egress proxy every sandbox process gets (it serves only requests carrying a
// sandbox's proxy credentials and fills secrets only into the headers that
// sandbox's network rules set, for the rule's domain).
//
// It speaks in host paths, pids and layer directories. It knows nothing of
// sandboxes as E2B sees them (IDs, templates, state, envd or the REST API)
// and holds no pointer to the server; it imports only hostfs below it.
package sandboxos
