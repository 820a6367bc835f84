package envd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// E2B's envd names the hyperloop server (the control plane's address for a sandbox's own
// requests, served here by the egress proxy) in the VM's /etc/hosts and gives every process
// E2B_EVENTS_ADDRESS=http://<its IP> (process.go). It rewrites /etc/hosts at every init, so
// the line is there again after a resume even if a process removed it.

const (
	eventsHost = "events.e2b.local"
	hostsPath  = "/etc/hosts"
	// maxHostsSize bounds what is read of a sandbox's /etc/hosts, which its code may have grown.
	maxHostsSize = 1 << 20
)

// setupHyperloop points events.e2b.local at the hyperloop in the sandbox's /etc/hosts. Only a
// private root has an /etc/hosts of its own: the shared layout's commands see the host's,
// which the emulator leaves alone (the proxy answers events.e2b.local by name all the same).
func (sb *Machine) setupHyperloop() error {
	if sb.settings.HyperloopIP == "" || sb.root == nil {
		return nil
	}
	// The file is the sandbox's, so hostile: its last component is not followed, and a
	// non-blocking open keeps a FIFO put in its place from holding the boot.
	p := sb.root.Path(hostsPath, false)
	var data []byte
	if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		st, serr := f.Stat()
		lst, lerr := os.Lstat(p)
		if serr == nil && lerr == nil && st.Mode().IsRegular() && os.SameFile(st, lst) {
			data, err = io.ReadAll(io.LimitReader(f, maxHostsSize))
			if err != nil {
				data = nil
			}
		}
		_ = f.Close()
	}
	out := []byte(hostsWithEvents(string(data), sb.settings.HyperloopIP))
	// A new file renamed over the old one: a link at /etc/hosts is replaced, never written through.
	tmp, err := os.CreateTemp(filepath.Dir(p), ".hosts-*")
	if err != nil {
		return fmt.Errorf("hyperloop: %w", err)
	}
	_, werr := tmp.Write(out)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("hyperloop: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("hyperloop: %w", err)
	}
	return nil
}

// hostsWithEvents is hosts with events.e2b.local named on one line only, ip's, last, in the
// layout E2B's envd writes ("192.0.2.1        events.e2b.local"); other names of a line that
// also held events.e2b.local stay.
func hostsWithEvents(hosts, ip string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(hosts, "\n") {
		if line == "" {
			continue
		}
		body, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(body)
		if len(fields) < 2 || !containsFold(fields[1:], eventsHost) {
			b.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				b.WriteByte('\n')
			}
			continue
		}
		var kept []string
		for _, f := range fields[1:] {
			if !strings.EqualFold(f, eventsHost) {
				kept = append(kept, f)
			}
		}
		if len(kept) > 0 {
			fmt.Fprintf(&b, "%-16s %s\n", fields[0], strings.Join(kept, " "))
		}
	}
	fmt.Fprintf(&b, "%-16s %s\n", ip, eventsHost)
	return b.String()
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
