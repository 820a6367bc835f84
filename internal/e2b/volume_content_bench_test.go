package e2b_test

import (
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
	open := func() (io.ReadCloser, error) { return io.NopCloser(&patternReader{left: size}), nil }
	measureRoundTrip(b, size, func() error {
		_, err := files.WriteFile(ctx, "/models/big.bin", open, e2b.VolumeOwnership{})
		return err
	}, func() (io.ReadCloser, error) { return files.ReadFile(ctx, "/models/big.bin") })
}
