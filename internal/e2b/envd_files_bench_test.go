package e2b_test

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

const mib = 1 << 20

// patternReader yields n deterministic bytes without holding them.
type patternReader struct {
	left int64
	pos  byte
}

func (p *patternReader) Read(buf []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	n := len(buf)
	if int64(n) > p.left {
		n = int(p.left)
	}
	for i := range buf[:n] {
		buf[i] = 'a' + p.pos%26
		p.pos++
	}
	p.left -= int64(n)
	return n, nil
}

func benchEnv(b *testing.B) (*emulator.Server, *e2b.Client, context.Context) {
	b.Helper()
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	c, err := e2b.New(e2b.Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	b.Cleanup(cancel)
	return srv, c, ctx
}

// BenchmarkFileRoundTrip256MiB uploads and downloads 256 MiB through the
// client and the emulator; the heap must stay far below the file size.
func BenchmarkFileRoundTrip256MiB(b *testing.B) { benchRoundTrip(b, 256*mib, false) }

// BenchmarkFileRoundTripGzip64MiB does the same with gzip both ways
// (compressed on the fly through a pipe, decoded while reading).
func BenchmarkFileRoundTripGzip64MiB(b *testing.B) { benchRoundTrip(b, 64*mib, true) }

// measureRoundTrip times b.N writes of size pattern bytes and reads back
// (each read must hand back what was written) and fails when the heap grew by
// 32 MiB or more: the budget of a round trip, far below the file size.
func measureRoundTrip(b *testing.B, size int64, write func() error, read func() (io.ReadCloser, error)) {
	b.Helper()
	want := crc32.NewIEEE()
	if _, err := io.Copy(want, &patternReader{left: size}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * size)
	b.ResetTimer()
	h := e2b.StartHeapWatch()
	for range b.N {
		if err := write(); err != nil {
			b.Fatal(err)
		}
		rc, err := read()
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

func benchRoundTrip(b *testing.B, size int64, gz bool) {
	_, c, ctx := benchEnv(b)
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 3600})
	if err != nil {
		b.Fatal(err)
	}
	envd := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	measureRoundTrip(b, size, func() error {
		_, err := envd.WriteFile(ctx, "/home/user/big.bin", &patternReader{left: size}, e2b.WriteOptions{Gzip: gz})
		return err
	}, func() (io.ReadCloser, error) {
		return envd.ReadFile(ctx, "/home/user/big.bin", e2b.ReadOptions{Gzip: gz})
	})
	if err := envd.Remove(ctx, "/home/user/big.bin"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCommandOutput100MiB streams 100 MiB of stdout from a command.
func BenchmarkCommandOutput100MiB(b *testing.B) {
	const size = 100 * mib
	_, c, ctx := benchEnv(b)
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 3600})
	if err != nil {
		b.Fatal(err)
	}
	envd := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	b.SetBytes(size)
	b.ResetTimer()
	h := e2b.StartHeapWatch()
	for range b.N {
		s, err := envd.StartProcess(ctx, e2b.StartProcessRequest{Process: e2b.ProcessConfig{
			Cmd: "/bin/bash", Args: []string{"-c", "head -c 104857600 /dev/zero | tr '\\0' x"}}})
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		var end e2b.ProcessEvent
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if ev.Kind == e2b.EventStdout {
				total += int64(len(ev.Data))
			}
			if ev.Kind == e2b.EventEnd {
				end = ev
			}
		}
		_ = s.Close()
		if total != size || !end.Exited || end.ExitCode != 0 {
			b.Fatalf("streamed %d bytes, end %+v", total, end)
		}
	}
	b.StopTimer()
	if growth := h.Report(b, "stdout"); growth >= 32 {
		b.Errorf("heap grew by %.1f MiB streaming 100 MiB of output", growth)
	}
}

// BenchmarkFolderUpload hashes a folder of 2,000 small files and four of 32 MiB (136 MiB),
// as a plan does, then uploads it as an apply does (multipart batches, hashed on the way);
// the heap must stay far below the folder's size.
func BenchmarkFolderUpload(b *testing.B) {
	_, c, ctx := benchEnv(b)
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 3600})
	if err != nil {
		b.Fatal(err)
	}
	envd := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	dir := b.TempDir()
	var total int64
	write := func(rel string, size int64) {
		full := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(full)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(f, &patternReader{left: size, pos: byte(len(rel))}); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		total += size
	}
	for i := range 2000 {
		write(fmt.Sprintf("src/m%02d/f%04d.txt", i%50, i), 4<<10)
	}
	for i := range 4 {
		write(fmt.Sprintf("data/part-%d.bin", i), 32*mib)
	}
	folder := e2b.LocalFolder{Dir: dir}
	b.SetBytes(2 * total) // read twice: hashed, then sent
	b.ResetTimer()
	h := e2b.StartHeapWatch()
	for range b.N {
		files, _, err := folder.Scan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		uploads := make([]e2b.UploadFile, len(files))
		for i, f := range files {
			uploads[i] = e2b.UploadFile{Path: "/home/user/app/" + f.Path, Size: f.Size,
				Open: func() (io.ReadCloser, error) { return folder.Open(f.Path) }}
		}
		written, err := envd.WriteFiles(ctx, uploads)
		if err != nil {
			b.Fatal(err)
		}
		for i := range written {
			if written[i].SHA256 != files[i].SHA256 {
				b.Fatalf("%s: sent %s, hashed %s", files[i].Path, written[i].SHA256, files[i].SHA256)
			}
		}
	}
	b.StopTimer()
	if growth := h.Report(b, "folder"); growth >= 32 {
		b.Errorf("heap grew by %.1f MiB moving a %d MiB folder; the budget is 32 MiB", growth, total/mib)
	}
}
