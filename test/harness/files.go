package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteTree creates files (slash path -> content) under dir, with their folders. A file is
// 0644, or 0755 where its path ends in "*" (the "*" is not part of the name); the mode is set
// past the umask, so a tree hashes and uploads alike on every machine.
func WriteTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			tb.Fatal(err)
		}
	}
}

// WriteRandomFile writes size bytes that do not compress to path, with its folders, and returns
// their SHA-256 in hex. The bytes are a xorshift stream from seed, the same on every machine,
// and go out one 1 MiB block at a time, so a file of gigabytes costs no memory.
func WriteRandomFile(tb testing.TB, path string, size int64, seed uint64) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	block := make([]byte, 1<<20)
	x := seed*0x9E3779B97F4A7C15 | 1 // odd, so never the 0 xorshift would keep
	for left := size; left > 0; left -= int64(len(block)) {
		for j := range block {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			block[j] = byte(x)
		}
		if _, err := w.Write(block[:min(left, int64(len(block)))]); err != nil {
			_ = f.Close()
			tb.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
