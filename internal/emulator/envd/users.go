package envd

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

const (
	defaultUser = hostfs.DefaultOwner
	rootUser    = hostfs.RootOwner
	rootHome    = "/root"
)

// requestUser is the user an envd request acts as: the username query of
// /files, else the Basic auth user of the RPCs, else the template's default.
// checkEnvdUser has already rejected unknown names.
func requestUser(r *http.Request) string {
	if u := r.URL.Query().Get("username"); u != "" {
		return u
	}
	if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")); err == nil {
		if u, _, _ := strings.Cut(string(raw), ":"); u != "" {
			return u
		}
	}
	return defaultUser
}

func userHome(user string) string {
	if user == rootUser {
		return rootHome
	}
	return VirtualHome
}

// userPath expands "~" and relative paths against user's home directory, as
// envd does; absolute paths are returned unchanged.
func userPath(user, p string) string {
	home := userHome(user)
	switch {
	case p == "" || p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return path.Join(home, p[2:])
	case !strings.HasPrefix(p, "/"):
		return path.Join(home, p)
	}
	return p
}

// separatesUsers reports whether requests act as the user they name, with
// that user's IDs (commands, and the owner of the files envd writes).
func (sb *Machine) separatesUsers() bool { return sb.settings.SingleUser == "" }

// etcDir is the host path of the sandbox's /etc, where its accounts are.
func (sb *Machine) etcDir() string {
	if sb.root != nil {
		return sb.root.Path("/etc", true)
	}
	return sb.storagePath("/etc") // the shared layout has none of its own: the base template's accounts
}

// identity is who a request naming user acts as: nil where the emulator
// runs everything as its own user. A user the emulator cannot be is refused.
func (sb *Machine) identity(user string) (*sandboxos.Identity, error) {
	if !sb.separatesUsers() {
		if user != sb.settings.SingleUser {
			return nil, fmt.Errorf("user '%s' is not available in this emulator: %s; only '%s' is", user, sb.settings.SingleUserWhy, sb.settings.SingleUser)
		}
		return nil, nil
	}
	id, err := sandboxos.LookupIdentity(sb.etcDir(), user)
	if err != nil {
		return nil, fmt.Errorf("error looking up user '%s': %w", user, err)
	}
	return &id, nil
}

// chownTo gives host (not following a final link) to id, as envd's chown
// does after it writes a file or makes a directory for the request's user;
// a no-op where users are not separated.
func chownTo(host string, id *sandboxos.Identity) error {
	if id == nil {
		return nil
	}
	return os.Lchown(host, int(id.UID), int(id.GID))
}

// chownFor gives host to user's IDs where users are separated.
func (sb *Machine) chownFor(host, user string) error {
	if !sb.separatesUsers() {
		return nil
	}
	id, err := sb.identity(user)
	if err != nil {
		return err
	}
	return chownTo(host, id)
}

// ensureDirs creates dir and its missing parents for user, as envd's
// EnsureDirs does: the directories it creates are user's, those that were
// there keep their owner.
func (sb *Machine) ensureDirs(dir, user string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := hostfs.EnsureDirs(dir, user); err != nil {
		return err
	}
	for _, d := range missing {
		if err := sb.chownFor(d, user); err != nil {
			return err
		}
	}
	return nil
}

// ownerOf is the owner and group envd reports for host: the names of its
// IDs in the sandbox's /etc where users are separated, else the user envd
// last wrote it for.
func (sb *Machine) ownerOf(host string, fi os.FileInfo) (owner, group string) {
	if sb.separatesUsers() {
		if o, ok := sandboxos.FileOwnerTimes(fi); ok {
			etc := sb.etcDir()
			return sandboxos.NameOf(etc, o.UID), sandboxos.GroupNameOf(etc, o.GID)
		}
	}
	owner = hostfs.Owner(host)
	return owner, owner
}

// Give gives host, a file inside the sandbox (HostPath; a link itself, not
// its target), to owner ("user" or "user:group", as the sandbox's accounts
// name them), as a template's COPY does; a no-op where users are not separated.
func (sb *Machine) Give(host, owner string) error {
	name, group, _ := strings.Cut(owner, ":")
	if !sb.separatesUsers() || name == "" {
		return nil
	}
	id, err := sb.identity(name)
	if err != nil {
		return err
	}
	if group != "" {
		gid, err := sandboxos.LookupGroupID(sb.etcDir(), group)
		if err != nil {
			return err
		}
		id.GID = gid
	}
	return chownTo(host, id)
}
