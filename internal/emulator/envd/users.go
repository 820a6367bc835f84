package envd

import (
	"encoding/base64"
	"net/http"
	"path"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
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
