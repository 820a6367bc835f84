package e2b

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// BenchmarkBuildTemplate1GiBContext hashes, archives and uploads a 1 GiB
// context (16 files of 64 MiB that do not compress) to a template control
// plane that reads the archive as it arrives, then builds again with the same
// context. It reports the peak heap growth of the whole process (client and
// server: an upper bound for the client) and the requests each build sent.
//
//	go test ./internal/e2b -run '^$' -bench BuildTemplate1GiB -benchtime 1x
func BenchmarkBuildTemplate1GiBContext(b *testing.B) {
	dir := b.TempDir()
	const files, fileSize = 16, 64 << 20
	for i := 0; i < files; i++ {
		harness.WriteRandomFile(b, filepath.Join(dir, "data", fmt.Sprintf("part-%02d.bin", i)), fileSize, uint64(i+1))
	}
	f := newFakeTemplates(b)
	f.perPoll = 100
	c, err := New(fastConfig(f.srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	spec := TemplateBuildSpec{
		Name: "bench", FromTemplate: "base", Context: buildcontext.Context{Dir: dir},
		Steps: []BuildStep{CopyStep("data", "/data", "", 0), RunStep("du -sh /data", "")},
	}
	opts := BuildOptions{PollInterval: 10 * time.Millisecond, MaxPollInterval: 100 * time.Millisecond}
	for i := 0; i < b.N; i++ {
		for _, round := range []string{"first", "cached"} {
			before := f.snapshotHits()
			watch := StartHeapWatch()
			start := time.Now()
			res, err := c.BuildTemplate(context.Background(), spec, opts)
			elapsed := time.Since(start)
			growth := watch.Stop()
			if err != nil {
				b.Fatalf("%s build: %v", round, err)
			}
			hits := f.snapshotHits()
			total := 0
			for route, n := range hits {
				d := n - before[route]
				total += d
				b.ReportMetric(float64(d), round+"-"+routeMetric(route))
			}
			b.ReportMetric(float64(total), round+"-requests")
			b.ReportMetric(growth, round+"-peak-heap-growth-MiB")
			b.ReportMetric(elapsed.Seconds(), round+"-seconds")
			if round == "first" && res.Uploaded != 1 || round == "cached" && res.Uploaded != 0 {
				b.Fatalf("%s build uploaded %d file sets", round, res.Uploaded)
			}
		}
	}
}

func routeMetric(route string) string {
	return map[string]string{
		"POST create": "create-requests", "GET link": "upload-link-requests", "PUT upload": "upload-requests",
		"POST start": "start-requests", "GET status": "status-requests",
	}[route]
}

func (f *fakeTemplates) snapshotHits() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for _, k := range []string{"POST create", "GET link", "PUT upload", "POST start", "GET status"} {
		out[k] = f.hits[k]
	}
	return out
}
