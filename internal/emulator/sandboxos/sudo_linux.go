package sandboxos

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// The emulator's executable is also sudo inside sandboxes: WriteSudo
// copies it, set-user-ID root, to usr/bin/sudo of a base skeleton, and a
// process that runs it under that name becomes sudo here, before the
// emulator (or a test binary) starts. E2B's base template gives its user
// passwordless sudo; this one really becomes the target user (root by
// default): its IDs, groups and the environment sudo sets.
//
// It acts only as /usr/bin/sudo of a sandbox's root: the set-user-ID copy
// lies on the host too (in DataDir/base, which only root may enter), and a
// host user who reached it there must not get the host's root.
func init() {
	if filepath.Base(os.Args[0]) != "sudo" || os.Geteuid() != 0 {
		return
	}
	if exe, err := os.Readlink("/proc/self/exe"); err != nil || exe != "/usr/bin/sudo" {
		fmt.Fprintln(os.Stderr, "sudo: this sudo works only inside an E2B emulator sandbox")
		os.Exit(1)
	}
	os.Exit(sudoMain(os.Args[1:]))
}

const sudoSecurePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// sudoKeptVars are what sudo's env_reset keeps of the caller's environment,
// and the egress proxy (on E2B egress belongs to the network, which sudo
// does not change).
var sudoKeptVars = map[string]bool{
	"TERM": true, "COLORTERM": true, "COLORS": true, "LS_COLORS": true, "DISPLAY": true, "XAUTHORITY": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "HOSTNAME": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
}

// sudoers are the callers sudo serves without a password, as E2B's base
// template's sudoers file does: root, user, and members of sudo or wheel.
func sudoAllowed(caller Identity) bool {
	if caller.UID == 0 || caller.Name == "user" {
		return true
	}
	for _, g := range caller.Groups {
		if n := GroupNameOf("/etc", g); n == "sudo" || n == "wheel" || n == "admin" {
			return true
		}
	}
	return false
}

type sudoRequest struct {
	target                        string
	preserve, login, shell, sethm bool
	keep                          []string
	assign, command               []string
}

func sudoUsage(code int) int {
	fmt.Fprintln(os.Stderr, "usage: sudo [-EHiknSsv] [-u user] [-g group] [--preserve-env[=list]] [VAR=value] [command [arg ...]]")
	return code
}

// parseSudo reads sudo's options; done reports an option that answers by
// itself (-l, -V, -h, -v) with its exit code.
func parseSudo(args []string, caller string) (req sudoRequest, done bool, code int) {
	req.target = "root"
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			goto words
		case a == "-E" || a == "--preserve-env":
			req.preserve = true
		case strings.HasPrefix(a, "--preserve-env="):
			req.keep = append(req.keep, strings.Split(strings.TrimPrefix(a, "--preserve-env="), ",")...)
		case a == "-u" || a == "--user" || a == "-g" || a == "--group" || a == "-C" || a == "--close-from" ||
			a == "-D" || a == "--chdir" || a == "--host" || a == "-p" || a == "--prompt" || a == "-r" || a == "--role" ||
			a == "-t" || a == "--type" || a == "-T" || a == "--command-timeout" || a == "-U" || a == "--other-user":
			if len(args) < 2 {
				return req, true, sudoUsage(1)
			}
			if a == "-u" || a == "--user" {
				req.target = args[1]
			}
			args = args[1:]
		case strings.HasPrefix(a, "--user="):
			req.target = strings.TrimPrefix(a, "--user=")
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			// --group=, --chdir=, --prompt=...: taken, without effect here
		case a == "-i" || a == "--login":
			req.login = true
		case a == "-s" || a == "--shell":
			req.shell = true
		case a == "-H" || a == "--set-home":
			req.sethm = true
		case a == "-n" || a == "--non-interactive" || a == "-S" || a == "--stdin" || a == "-k" || a == "--reset-timestamp" ||
			a == "-b" || a == "--background" || a == "-P" || a == "--preserve-groups" || a == "-A" || a == "--askpass" ||
			a == "-B" || a == "--bell" || a == "-N" || a == "--no-update":
		case a == "-v" || a == "--validate" || a == "-K" || a == "--remove-timestamp":
			if len(args) == 1 {
				return req, true, 0
			}
		case a == "-l" || a == "--list":
			host, _ := os.Hostname()
			fmt.Printf("User %s may run the following commands on %s:\n    (ALL : ALL) NOPASSWD: ALL\n", caller, host)
			return req, true, 0
		case a == "-V" || a == "--version":
			fmt.Println("Sudo version 1.9 (the E2B emulator's)")
			return req, true, 0
		case a == "-h" || a == "--help":
			return req, true, sudoUsage(0)
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune("ugCDprtTU", rune(a[1])):
			args = append([]string{a[:2], a[2:]}, args[1:]...) // -uroot
			continue
		case len(a) > 2 && a[0] == '-' && a[1] != '-':
			args = append([]string{a[:2], "-" + a[2:]}, args[1:]...) // -nE is -n -E
			continue
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(os.Stderr, "sudo: unrecognized option '%s'\n", a)
			return req, true, sudoUsage(1)
		default:
			goto words
		}
		args = args[1:]
	}
words:
	for len(args) > 0 && isAssignment(args[0]) {
		req.assign = append(req.assign, args[0])
		args = args[1:]
	}
	req.command = args
	if len(args) == 0 && !req.login && !req.shell {
		return req, true, sudoUsage(1)
	}
	return req, false, 0
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, r := range name {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// lookupSudoTarget finds name (or "#uid") in the sandbox's accounts.
func lookupSudoTarget(name string) (Identity, string, bool) {
	if uid, ok := strings.CutPrefix(name, "#"); ok {
		if n, err := strconv.ParseUint(uid, 10, 32); err == nil {
			name = NameOf("/etc", uint32(n))
		}
	}
	id, ok := lookupPasswd("/etc", name)
	if !ok {
		return Identity{}, "", false
	}
	return id, passwdShell(name), true
}

func passwdShell(name string) string {
	data, _ := os.ReadFile("/etc/passwd")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, ":"); len(f) >= 7 && f[0] == name && f[6] != "" {
			return f[6]
		}
	}
	return "/bin/sh"
}

// findCommand looks name up on sudo's secure path.
func findCommand(name string) (string, bool) {
	if strings.Contains(name, "/") {
		st, err := os.Stat(name)
		return name, err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	for _, dir := range strings.Split(sudoSecurePath, ":") {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func shellQuoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r == '_' || r == '-' || r == '.' || r == '/' || r == ',' || r == ':' || r == '=' || r == '+' || r == '@' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
		}) < 0 {
			q[i] = w
			continue
		}
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// sudoMain is sudo: it checks the caller, becomes the target user and
// execs the command with the environment sudo gives it.
func sudoMain(args []string) int {
	callerUID := uint32(os.Getuid())
	callerName := NameOf("/etc", callerUID)
	caller, ok := lookupPasswd("/etc", callerName)
	if !ok {
		caller = Identity{Name: callerName, UID: callerUID, GID: uint32(os.Getgid())}
	}
	req, done, code := parseSudo(args, callerName)
	if done {
		return code
	}
	if !sudoAllowed(caller) {
		fmt.Fprintf(os.Stderr, "sudo: %s is not in the sudoers file.\n", callerName)
		return 1
	}
	target, targetShell, ok := lookupSudoTarget(req.target)
	if !ok {
		fmt.Fprintf(os.Stderr, "sudo: unknown user %s\n", req.target)
		return 1
	}
	home := target.Home
	if home == "" {
		home = "/"
	}
	command := req.command
	if req.login || req.shell {
		sh := targetShell
		if !req.login {
			if s := os.Getenv("SHELL"); s != "" {
				sh = s
			}
		}
		var words []string
		if len(command) > 0 {
			words = []string{"-c", shellQuoteWords(command)}
		}
		if req.login {
			command = append([]string{sh, "-l"}, words...)
		} else {
			command = append([]string{sh}, words...)
		}
	}
	resolved, ok := findCommand(command[0])
	if !ok {
		fmt.Fprintf(os.Stderr, "sudo: %s: command not found\n", command[0])
		return 1
	}

	env := map[string]string{}
	if req.preserve {
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		if req.sethm || req.login {
			env["HOME"] = home
		}
	} else {
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); sudoKeptVars[k] || strings.HasPrefix(k, "LC_") {
				env[k] = v
			}
		}
		for _, k := range req.keep {
			if v, ok := os.LookupEnv(k); ok {
				env[k] = v
			}
		}
		env["HOME"], env["SHELL"], env["MAIL"] = home, targetShell, "/var/mail/"+target.Name
	}
	sudoCommand := resolved
	if len(command) > 1 {
		sudoCommand += " " + strings.Join(command[1:], " ")
	}
	env["PATH"], env["USER"], env["LOGNAME"] = sudoSecurePath, target.Name, target.Name
	env["SUDO_USER"], env["SUDO_UID"], env["SUDO_GID"] = caller.Name, strconv.FormatUint(uint64(caller.UID), 10), strconv.FormatUint(uint64(caller.GID), 10)
	env["SUDO_COMMAND"] = sudoCommand
	for _, a := range req.assign {
		k, v, _ := strings.Cut(a, "=")
		env[k] = v
	}
	envList := make([]string, 0, len(env))
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	sort.Strings(envList)

	if req.login {
		_ = os.Chdir(home) // as root, before the switch: sudo -i starts in the target's home
	}
	groups := make([]int, len(target.Groups))
	for i, g := range target.Groups {
		groups[i] = int(g)
	}
	if err := syscall.Setgroups(groups); err != nil {
		fmt.Fprintf(os.Stderr, "sudo: unable to set supplementary groups: %v\n", err)
		return 1
	}
	if err := syscall.Setresgid(int(target.GID), int(target.GID), int(target.GID)); err != nil {
		fmt.Fprintf(os.Stderr, "sudo: unable to set gid to %d: %v\n", target.GID, err)
		return 1
	}
	if err := syscall.Setresuid(int(target.UID), int(target.UID), int(target.UID)); err != nil {
		fmt.Fprintf(os.Stderr, "sudo: unable to set uid to %d: %v\n", target.UID, err)
		return 1
	}
	err := syscall.Exec(resolved, command, envList)
	fmt.Fprintf(os.Stderr, "sudo: unable to execute %s: %v\n", resolved, err)
	return 1
}
