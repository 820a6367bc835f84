package tfworking

import (
	"archive/zip"
	"bytes"
	"io"
)

// LooksLikeSavedPlan reports whether r (a regular file of size bytes) is a
// saved plan (`plan -out`): a zip archive holding a "tfplan" entry, or an
// OpenTofu plan encrypted as {"meta":…,"encrypted_data":…,"encryption_version":…}.
// It reads the first bytes and, for a zip archive, its directory.
func LooksLikeSavedPlan(r io.ReaderAt, size int64) bool {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		zr, err := zip.NewReader(r, size)
		if err != nil {
			return false
		}
		for _, zf := range zr.File {
			if zf.Name == "tfplan" {
				return true
			}
		}
	case bytes.Equal(head, []byte(`{"meta":`)):
		tail := make([]byte, min(size, 256))
		if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
			return false
		}
		tail = bytes.TrimSpace(tail)
		return bytes.Contains(tail, []byte(`"encryption_version":"`)) && bytes.HasSuffix(tail, []byte(`"}`))
	}
	return false
}
