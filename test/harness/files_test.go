package harness

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A random file has the size asked for (past a whole block too), the hash returned is its
// content's, the same seed gives the same bytes and another seed others, and gzip cannot shrink it.
func TestWriteRandomFile(t *testing.T) {
	dir := t.TempDir()
	const size = 1<<20 + 12345
	a := filepath.Join(dir, "a", "one.bin")
	sum := WriteRandomFile(t, a, size, 7)
	content, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(content) != size {
		t.Fatalf("%d bytes, want %d", len(content), size)
	}
	if got := sha256.Sum256(content); hex.EncodeToString(got[:]) != sum {
		t.Fatalf("returned hash %s is not the content's %x", sum, got)
	}
	if again := WriteRandomFile(t, filepath.Join(dir, "again.bin"), size, 7); again != sum {
		t.Fatalf("seed 7 twice: %s then %s", sum, again)
	}
	if other := WriteRandomFile(t, filepath.Join(dir, "other.bin"), size, 8); other == sum {
		t.Fatal("seeds 7 and 8 wrote the same bytes")
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(content)
	_ = zw.Close()
	if zipped.Len() < size {
		t.Fatalf("gzip shrank %d bytes to %d: the content compresses", size, zipped.Len())
	}
	if empty := WriteRandomFile(t, filepath.Join(dir, "empty.bin"), 0, 1); empty != hex.EncodeToString(sha256.New().Sum(nil)) {
		t.Fatalf("an empty file's hash %s", empty)
	}
}
