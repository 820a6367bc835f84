package sandboxos

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Without a user namespace, a sandbox's root shares the host's: every
// capability it holds counts on the host (load a kernel module, mount over
// the host's tree, ptrace, open_by_handle_at out of the root, the host's
// network). So every command of such a sandbox passes, once inside the
// sandbox's namespaces, through the emulator's own executable, which drops
// from its bounding, inheritable, ambient, permitted and effective sets
// every capability but sandboxKeptCaps, and then execs it. The bounding set
// limits the set-user-ID sudo too, so sudo still gives root, that root.
// no_new_privs is not set: it would stop sudo.
//
// The executable is handed to nsenter as an open file (fd capDropFD, so a
// binary replaced on disk meanwhile is not what runs) and run from the
// host's root (nsenter --root=/): a dynamically linked one then loads the
// host's loader and libraries, not ones the sandbox wrote in its layer.
// The loader's variables (LD_*, GLIBC_TUNABLES) do not reach it: the
// command's are handed over as arguments and set again before the exec.
// It then chroots into the sandbox's root (its cwd, the init's, which
// nsenter --wd gives it). The shared layout's commands as root, whose root
// is the host's, pass through it too (DropCaps), without the chroot.

// capDropMarker, as the first argument of the emulator's executable, makes
// it the dropper (capDropMain) before the emulator (or a test binary) starts.
const capDropMarker = "--e2b-sandbox-drop-caps"

// capDropFD is the emulator's executable in a command that drops
// capabilities; fd 3 is ExecSync's.
const capDropFD = 4

// sandboxKeptCaps are what a sandbox's root keeps without a user namespace,
// about Docker's default set: each acts on what the process may already
// reach (its own files, processes and ports), none on the host as a whole.
//
//   - CHOWN, DAC_OVERRIDE, FOWNER, FSETID: root's power over the files in
//     its root (apt, chown, chmod of other users' files).
//   - KILL: signals to the sandbox's processes (its PID namespace hides others).
//   - SETUID, SETGID: su, sudo -u, login shells switching users.
//   - SETPCAP: only to drop more from the bounding set.
//   - SETFCAP: file capabilities, which still stop at the bounding set.
//   - NET_BIND_SERVICE: ports below 1024, as in E2B's VMs.
//   - SYS_CHROOT: chroot inside the root (its mount namespace's root is the sandbox's).
//   - AUDIT_WRITE: login tools write audit records.
//
// Dropped, among the rest: SYS_ADMIN (mounts, setns, open_by_handle_at's
// kin), SYS_MODULE, SYS_RAWIO, SYS_BOOT, SYS_TIME, SYS_PTRACE,
// DAC_READ_SEARCH (open_by_handle_at reaches files outside the root),
// NET_ADMIN and NET_RAW (the network namespace is the host's: its routes,
// firewall and every packet), MKNOD (a node of the host's disks),
// SYSLOG, MAC_*, AUDIT_CONTROL, BPF, PERFMON, SYS_NICE (real-time
// priorities starve the host), SYS_RESOURCE (past the limits), WAKE_ALARM,
// BLOCK_SUSPEND, LINUX_IMMUTABLE, SYS_PACCT, LEASE, IPC_LOCK, IPC_OWNER,
// SYS_TTY_CONFIG, CHECKPOINT_RESTORE.
var sandboxKeptCaps = []int{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID, unix.CAP_KILL,
	unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETPCAP, unix.CAP_SETFCAP,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_SYS_CHROOT, unix.CAP_AUDIT_WRITE,
}

// showLineMarker makes the emulator's executable ShowLine's host side
// (showLineMain): root's mounts in the sandbox's namespace without running
// any program of the sandbox's root.
const showLineMarker = "--e2b-sandbox-show-line"

func init() {
	if len(os.Args) < 2 || filepath.Base(os.Args[0]) == "sudo" {
		return
	}
	var err error
	switch os.Args[1] {
	case capDropMarker:
		err = capDropMain(os.Args[2:])
	case showLineMarker:
		err = showLineMain(os.Args[2:])
		if err == nil {
			os.Exit(0)
		}
	default:
		return
	}
	fmt.Fprintln(os.Stderr, "sandbox:", err)
	os.Exit(126)
}

// showLineMain, in the sandbox's mount namespace with its root as working
// directory, writes stdin's line to file (a path in the root) and binds it
// over target, as root's own code: the sandbox's sh, mount and libraries,
// which it may have replaced, never run with the emulator's capabilities.
func showLineMain(args []string) error {
	if os.Getuid() != 0 || os.Geteuid() != 0 || len(args) != 2 {
		return fmt.Errorf("usage: (as root) %s TARGET FILE", showLineMarker)
	}
	target, file := args[0], args[1]
	line, err := io.ReadAll(io.LimitReader(os.Stdin, 4096))
	if err != nil {
		return err
	}
	if err := syscall.Chroot("."); err != nil {
		return fmt.Errorf("enter the sandbox's root: %w", err)
	}
	if err := syscall.Chdir("/"); err != nil {
		return err
	}
	_ = os.Remove(file) // a link the sandbox left there is not followed
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(line); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	_ = syscall.Unmount(target, 0) // an earlier boot's
	return syscall.Mount(file, target, "", syscall.MS_BIND, "")
}

// capDropArgs are the dropper's words: [--chroot] [--sync-fd N] [--uid N
// --gid N [--groups N,N...]] [--env NAME=VALUE]... -- command...
type capDropArgs struct {
	chroot       bool // the working directory is the sandbox's root: enter it
	syncFD       int  // ExecSync's pipe, closed as the command is exec'd; -1 for none
	uid, gid     int
	groups       []int
	env, command []string
}

func parseCapDropArgs(args []string) (capDropArgs, error) {
	a := capDropArgs{uid: -1, gid: -1, syncFD: -1}
	for len(args) > 0 {
		switch args[0] {
		case "--":
			a.command = args[1:]
			if len(a.command) == 0 {
				return a, fmt.Errorf("no command")
			}
			return a, nil
		case "--chroot":
			a.chroot = true
			args = args[1:]
			continue
		case "--uid", "--gid", "--env", "--groups", "--sync-fd":
			if len(args) < 2 {
				return a, fmt.Errorf("%s needs a value", args[0])
			}
			switch args[0] {
			case "--env":
				a.env = append(a.env, args[1])
			case "--groups":
				for _, g := range strings.Split(args[1], ",") {
					n, err := strconv.Atoi(g)
					if err != nil || n < 0 {
						return a, fmt.Errorf("bad --groups %q", args[1])
					}
					a.groups = append(a.groups, n)
				}
			default:
				n, err := strconv.Atoi(args[1])
				if err != nil || n < 0 {
					return a, fmt.Errorf("bad %s %q", args[0], args[1])
				}
				switch args[0] {
				case "--uid":
					a.uid = n
				case "--gid":
					a.gid = n
				default:
					a.syncFD = n
				}
			}
			args = args[2:]
		default:
			return a, fmt.Errorf("unknown argument %q", args[0])
		}
	}
	return a, fmt.Errorf("no command")
}

// capDropMain drops the capabilities, enters the sandbox's root (the
// working directory), becomes uid and gid if given, and execs the command.
// Only root uses it: a set-user-ID copy (sudo's) run under another name by
// another user refuses, whatever its effective user.
func capDropMain(args []string) error {
	if os.Getuid() != 0 || os.Geteuid() != 0 {
		return fmt.Errorf("dropping capabilities is root's alone")
	}
	a, err := parseCapDropArgs(args)
	if err != nil {
		return err
	}
	// Capabilities are a thread's: the exec below runs on this thread.
	runtime.LockOSThread()
	if err := dropSandboxCaps(); err != nil {
		return err
	}
	if a.chroot {
		if err := syscall.Chroot("."); err != nil {
			return fmt.Errorf("enter the sandbox's root: %w", err)
		}
		if err := syscall.Chdir("/"); err != nil {
			return err
		}
	}
	if a.gid >= 0 {
		// Without --groups, as nsenter --setgid: no supplementary group.
		if err := syscall.Setgroups(a.groups); err != nil {
			return err
		}
		if err := syscall.Setgid(a.gid); err != nil {
			return err
		}
	}
	if a.uid >= 0 {
		if err := syscall.Setuid(a.uid); err != nil {
			return err
		}
	}
	syscall.CloseOnExec(capDropFD)
	if a.syncFD >= 0 {
		syscall.CloseOnExec(a.syncFD)
	}
	// The command's PATH finds it, as the shell's exec did.
	path := a.command[0]
	if !strings.Contains(path, "/") {
		if p, err := exec.LookPath(path); err == nil {
			path = p
		}
	}
	err = syscall.Exec(path, a.command, append(os.Environ(), a.env...))
	if errors.Is(err, syscall.ENOENT) {
		fmt.Fprintf(os.Stderr, "%s: not found\n", a.command[0])
		os.Exit(127)
	}
	return fmt.Errorf("%s: %w", a.command[0], err)
}

var emulatorExe struct {
	once sync.Once
	file *os.File
}

// emulatorExecutable is the emulator's executable, opened once (nil where it cannot be).
func emulatorExecutable() *os.File {
	emulatorExe.once.Do(func() {
		emulatorExe.file, _ = os.Open("/proc/self/exe")
	})
	return emulatorExe.file
}

// DropCaps makes cmd, started by root, run the words from cmd.Args[at] on
// (at 0: its own program) through the capability dropper, with id's IDs and
// groups when id is set (not root), and the dropper's other options.
// It reports false, leaving cmd as it is, where the emulator is not root
// (nothing to drop), and where cmd's program was not found (Start says so).
// Use SetCommandEnv for cmd's environment.
func DropCaps(cmd *exec.Cmd, at int, id *Identity, options ...string) (bool, error) {
	if os.Geteuid() != 0 || (at == 0 && cmd.Err != nil) {
		return false, nil
	}
	exe := emulatorExecutable()
	if exe == nil {
		return false, fmt.Errorf("the emulator's executable cannot be opened to drop capabilities")
	}
	drop := append([]string{"/proc/self/fd/" + strconv.Itoa(capDropFD), capDropMarker}, options...)
	if id != nil && !id.Root() {
		groups := make([]string, len(id.Groups))
		for i, g := range id.Groups {
			groups[i] = strconv.FormatUint(uint64(g), 10)
		}
		drop = append(drop, "--uid", strconv.FormatUint(uint64(id.UID), 10), "--gid", strconv.FormatUint(uint64(id.GID), 10))
		if len(groups) > 0 {
			drop = append(drop, "--groups", strings.Join(groups, ","))
		}
	}
	drop = append(drop, "--")
	rest := cmd.Args[at:]
	if at == 0 {
		rest = append([]string{cmd.Path}, cmd.Args[1:]...)
		cmd.Path = drop[0]
	}
	cmd.Args = append(append(cmd.Args[:at:at], drop...), rest...)
	attachCapDrop(cmd, exe)
	return true, nil
}

// attachCapDrop hands cmd the emulator's executable as capDropFD, keeping fd 3 for ExecSync.
func attachCapDrop(cmd *exec.Cmd, exe *os.File) {
	for len(cmd.ExtraFiles) < capDropFD-2 {
		cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
	}
	cmd.ExtraFiles[capDropFD-3] = exe
}

// SetCommandEnv gives cmd its environment; where cmd passes through the
// capability dropper, the dynamic loader's variables go to it as
// arguments, set again only for the command: a dynamically linked
// emulator must not load what they name while it holds the capabilities.
func SetCommandEnv(cmd *exec.Cmd, env []string) {
	at := slices.Index(cmd.Args, capDropMarker)
	if at < 0 {
		cmd.Env = env
		return
	}
	cmd.Env = make([]string, 0, len(env))
	var moved []string
	for _, kv := range env {
		if loaderVar(kv) {
			moved = append(moved, "--env", kv)
		} else {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Args = append(cmd.Args[:at+1], append(moved, cmd.Args[at+1:]...)...)
}

// dropSandboxCaps drops, from the calling thread, every capability but
// sandboxKeptCaps: bounding set first (it needs SETPCAP), then ambient,
// then inheritable, permitted and effective.
func dropSandboxCaps() error {
	kept := map[int]bool{}
	for _, c := range sandboxKeptCaps {
		kept[c] = true
	}
	for c := 0; c <= lastCap(); c++ {
		if kept[c] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	var mask [2]uint32
	for _, c := range sandboxKeptCaps {
		mask[c/32] |= 1 << (c % 32)
	}
	for i := range data {
		data[i].Effective &= mask[i]
		data[i].Permitted &= mask[i]
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("set capabilities: %w", err)
	}
	return nil
}

// lastCap is the kernel's highest capability number.
func lastCap() int {
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return n
		}
	}
	return 63
}

// loaderVar reports an environment variable the dynamic loader reads.
func loaderVar(kv string) bool {
	return strings.HasPrefix(kv, "LD_") || strings.HasPrefix(kv, "GLIBC_TUNABLES=")
}
