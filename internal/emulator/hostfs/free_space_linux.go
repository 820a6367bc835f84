package hostfs

import "syscall"

// FreeMiB is the space, in MiB, an unprivileged process can still write on the file system
// that holds dir; -1 when it cannot be read.
func FreeMiB(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail * uint64(st.Bsize) >> 20)
}
