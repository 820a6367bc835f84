package sandboxos

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Identity is who a command runs as, read from the sandbox's own
// /etc/passwd and /etc/group as E2B's envd reads them (user.Lookup and the
// user's group IDs): commands get these IDs, files written for the user are
// owned by them.
type Identity struct {
	Name     string
	UID, GID uint32
	Groups   []uint32 // supplementary groups: every group of /etc/group naming the user
	Home     string
}

// Root reports whether the identity is the superuser.
func (id Identity) Root() bool { return id.UID == 0 }

// The accounts of E2B's base template, used where a root's /etc has no
// entry for them (the shared layout, where /etc is the host's).
var fallbackIdentities = map[string]Identity{
	"root": {Name: "root", UID: 0, GID: 0, Groups: []uint32{0}, Home: "/root"},
	"user": {Name: "user", UID: 1000, GID: 1000, Groups: []uint32{1000}, Home: "/home/user"},
}

// LookupIdentity finds name in the passwd and group files under etc (a
// host path holding the sandbox's /etc); the base template's root and user
// where etc has no entry for them.
func LookupIdentity(etc, name string) (Identity, error) {
	if id, ok := lookupPasswd(etc, name); ok {
		return id, nil
	}
	if id, ok := fallbackIdentities[name]; ok {
		return id, nil
	}
	return Identity{}, fmt.Errorf("user: unknown user %s", name)
}

func lookupPasswd(etc, name string) (Identity, bool) {
	data, err := os.ReadFile(filepath.Join(etc, "passwd"))
	if err != nil {
		return Identity{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) < 7 || f[0] != name {
			continue
		}
		uid, err1 := strconv.ParseUint(f[2], 10, 32)
		gid, err2 := strconv.ParseUint(f[3], 10, 32)
		if err1 != nil || err2 != nil {
			return Identity{}, false
		}
		id := Identity{Name: name, UID: uint32(uid), GID: uint32(gid), Home: f[5]}
		id.Groups = groupsOf(etc, name, id.GID)
		return id, true
	}
	return Identity{}, false
}

// groupsOf is the primary group and every group of etc/group listing name
// as a member, as getgrouplist returns them.
func groupsOf(etc, name string, primary uint32) []uint32 {
	groups := []uint32{primary}
	data, err := os.ReadFile(filepath.Join(etc, "group"))
	if err != nil {
		return groups
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) < 4 {
			continue
		}
		gid, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil || uint32(gid) == primary {
			continue
		}
		for _, member := range strings.Split(f[3], ",") {
			if member == name {
				groups = append(groups, uint32(gid))
				break
			}
		}
	}
	return groups
}

// NameOf is the account name of uid in etc/passwd, the number itself when
// there is none (as envd's entry info reports it).
func NameOf(etc string, uid uint32) string {
	data, err := os.ReadFile(filepath.Join(etc, "passwd"))
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Split(line, ":"); len(f) >= 3 && f[2] == strconv.FormatUint(uint64(uid), 10) {
				return f[0]
			}
		}
	}
	for _, id := range fallbackIdentities {
		if id.UID == uid {
			return id.Name
		}
	}
	return strconv.FormatUint(uint64(uid), 10)
}

// GroupNameOf is NameOf for a group ID in etc/group.
func GroupNameOf(etc string, gid uint32) string {
	data, err := os.ReadFile(filepath.Join(etc, "group"))
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Split(line, ":"); len(f) >= 3 && f[2] == strconv.FormatUint(uint64(gid), 10) {
				return f[0]
			}
		}
	}
	for _, id := range fallbackIdentities {
		if id.GID == gid {
			return id.Name
		}
	}
	return strconv.FormatUint(uint64(gid), 10)
}

// notRootUsers is the host gap of an emulator that is not root: it cannot
// give a process another user's IDs.
const notRootUsers = "not root: commands cannot take another user's IDs, so only user may be named (commands run as the emulator's own user) and root is refused"

// LookupGroupID finds group (a name, or a number) in etc/group.
func LookupGroupID(etc, group string) (uint32, error) {
	if n, err := strconv.ParseUint(group, 10, 32); err == nil {
		return uint32(n), nil
	}
	data, _ := os.ReadFile(filepath.Join(etc, "group"))
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, ":"); len(f) >= 3 && f[0] == group {
			if n, err := strconv.ParseUint(f[2], 10, 32); err == nil {
				return uint32(n), nil
			}
		}
	}
	for _, id := range fallbackIdentities {
		if id.Name == group {
			return id.GID, nil
		}
	}
	return 0, fmt.Errorf("group: unknown group %s", group)
}
