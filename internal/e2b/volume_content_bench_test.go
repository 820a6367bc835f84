package e2b_test

import (
	"hash/crc32"
	"io"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// BenchmarkVolumeFileRoundTrip256MiB writes and reads 256 MiB through the
// volume-content API; the heap must stay far below the file size (the budget
// of the sandbox file's round trip).
func BenchmarkVolumeFileRoundTrip256MiB(b *testing.B) {
	const size = 256 * mib
	_, c, ctx := benchEnv(b)
	v, err := c.CreateVolume(ctx, "bench-vol")
	if err != nil {
		b.Fatal(err)
	}
	files := c.VolumeFiles(v.VolumeID)
	want := crc32.NewIEEE()
	if _, err := io.Copy(want, &patternReader{left: size}); err != nil {
		b.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(&patternReader{left: size}), nil }
	b.SetBytes(2 * size)
	b.ResetTimer()
	h := e2b.StartHeapWatch()
	for range b.N {
		if _, err := files.WriteFile(ctx, "/models/big.bin", open, e2b.VolumeOwnership{}); err != nil {
			b.Fatal(err)
		}
		rc, err := files.ReadFile(ctx, "/models/big.bin")
		if err != nil {
			b.Fatal(err)
		}
		got := crc32.NewIEEE()
		n, err := io.Copy(got, rc)
		_ = rc.Close()
		if err != nil || n != size || got.Sum32() != want.Sum32() {
			b.Fatalf("downloaded %d bytes (crc %x, want %x): %v", n, got.Sum32(), want.Sum32(), err)
		}
	}
	b.StopTimer()
	if growth := h.Report(b, "roundtrip"); growth >= 32 {
		b.Errorf("heap grew by %.1f MiB moving a %d MiB file; the budget is 32 MiB", growth, size/mib)
	}
}
