//go:build !linux

package hostfs

// FreeMiB is -1 outside Linux: the free space is not read there.
func FreeMiB(string) int64 { return -1 }
