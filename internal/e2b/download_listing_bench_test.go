package e2b

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDownloadListingMemory: the client's peak heap while a folder of 300,000 entries is
// downloaded (299,000 pipes, skipped, and 1,000 empty files, written), from a stand-in envd that
// generates the listing as it sends it. The listing is decoded entry by entry and the skipped
// names are counted past the first 100, so the peak stays flat (the listing decoded whole took
// 427 MiB before the first copy).
func BenchmarkDownloadListingMemory(b *testing.B) {
	const entries, files = 300_000, 1_000
	l := &lyingEnvd{
		stat: statAnswer(`{"name":"dir","type":"FILE_TYPE_DIRECTORY","path":"/home/user/dir"}`),
		list: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			bw := bufio.NewWriterSize(w, 64<<10)
			_, _ = bw.WriteString(`{"entries":[`)
			for i := range entries {
				if i > 0 {
					_ = bw.WriteByte(',')
				}
				typ := ""
				if i%(entries/files) == 0 {
					typ = "FILE_TYPE_FILE"
				}
				_, _ = fmt.Fprintf(bw, `{"name":"e%06d","type":%q,"path":"/home/user/dir/e%06d","size":"0","permissions":"prw-r--r--"}`, i, typ, i)
			}
			_, _ = bw.WriteString(`]}`)
			_ = bw.Flush()
		},
		file: func(http.ResponseWriter, *http.Request) {},
	}
	b.StopTimer()
	envd := l.envd(b)
	for i := 0; i < b.N; i++ {
		dest := b.TempDir()
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		res, err := envd.Download(context.Background(), "/home/user/dir", dest, DownloadOptions{})
		b.StopTimer()
		close(stop)
		<-done
		if err != nil || res.Files != files || res.SkippedUnlisted != entries-files-downloadSkippedNames {
			b.Fatalf("%+v %v", res.Files, err)
		}
		b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "heap-growth-MiB")
	}
}
