//go:build !unix

package e2b

// freeBytes does not know the free space here: only max_bytes bounds a download.
func freeBytes(string) (int64, bool) { return 0, false }
