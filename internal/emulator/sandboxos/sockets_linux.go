package sandboxos

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpListen is the state /proc/net/tcp gives a listening socket.
const tcpListen = "0A"

// ListeningSockets returns the inodes of the TCP sockets (IPv4 and IPv6) that listen on port in
// the emulator's network namespace, which sandboxes share.
func ListeningSockets(port uint16) map[uint64]bool {
	out := map[uint64]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header line
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != tcpListen {
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || uint16(p) != port {
				continue
			}
			if inode, err := strconv.ParseUint(fields[9], 10, 64); err == nil && inode != 0 {
				out[inode] = true
			}
		}
		_ = f.Close()
	}
	return out
}

// HoldsSocket reports whether process pid has one of the sockets open.
func HoldsSocket(pid int, inodes map[uint64]bool) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64); err == nil && inodes[inode] {
			return true
		}
	}
	return false
}
