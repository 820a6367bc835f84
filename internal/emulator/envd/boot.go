package envd

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/hostfs"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/ids"
)

// A sandbox boots when it is created and again when a filesystem-only pause
// (pause with memory false, or an auto-pause with autoPauseMemory false) is
// resumed: E2B then cold-boots the VM from its disk, so only files survive.

// bootIDPath holds the sandbox's kernel boot ID. With mount namespaces it is
// bound over /proc/sys/kernel/random/boot_id for the sandbox's commands, so
// a new boot is visible where it is on E2B.
func (sb *Machine) bootIDPath() string { return filepath.Join(sb.dir, "boot_id") }

// boot gives the sandbox a new boot ID and the directories every boot has.
func (sb *Machine) boot() error {
	if err := os.Remove(sb.bootIDPath()); err != nil && !os.IsNotExist(err) {
		return err // a snapshot's copy is read-only
	}
	if err := os.WriteFile(sb.bootIDPath(), []byte(ids.UUID()+"\n"), 0o444); err != nil {
		return err
	}
	sb.showBootID()
	if err := sb.writeRunInfo(); err != nil {
		return err
	}
	if err := sb.setupHyperloop(); err != nil {
		// As E2B's envd: the sandbox's own /etc/hosts may be beyond repair, which fails no boot.
		sb.settings.Logf("emulator: sandbox %s: %v", sb.id, err)
	}
	return sb.makeRootHome()
}

// makeRootHome creates /root, root's home, owned by root, where envd puts
// relative paths of root's requests.
func (sb *Machine) makeRootHome() error {
	home := sb.hostPath(rootHome)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	if err := hostfs.SetOwner(home, rootUser); err != nil && !hostfs.XattrUnsupported(err) {
		return err
	}
	return nil
}

// Reboot is the cold boot that resumes a filesystem-only pause: the
// processes were killed at the pause, and the new envd knows none of them
// nor any watcher of the old one.
func (sb *Machine) Reboot() {
	sb.procs.forgetAll()
	sb.closeWatchers()
	if err := sb.boot(); err != nil {
		sb.settings.Logf("emulator: sandbox %s: boot: %v", sb.id, err)
	}
}

// forgetAll drops every process from the table, ended or not.
func (pt *processTable) forgetAll() {
	pt.mu.Lock()
	procs := make([]*process, 0, len(pt.byPID))
	for pid, p := range pt.byPID {
		procs = append(procs, p)
		delete(pt.byPID, pid)
	}
	pt.mu.Unlock()
	for _, p := range procs {
		p.closeStdin()
	}
}

// showBootID binds the sandbox's boot ID file over the kernel's in its
// private root (done again at every boot, since boot writes a new file).
// Where the kernel refuses, commands read the host's boot ID.
func (sb *Machine) showBootID() {
	if sb.root == nil {
		return
	}
	if id, err := os.ReadFile(sb.bootIDPath()); err == nil {
		_ = sb.root.ShowLine(strings.TrimSpace(string(id)), "/proc/sys/kernel/random/boot_id")
	}
}
