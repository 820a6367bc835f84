package e2b

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// HeapWatch samples the heap every 5 ms while a benchmark runs and keeps the
// peak over the starting point. It measures the whole process, so an
// in-process emulator is included: the figure is an upper bound for the
// client. Exported for the package's external benchmarks (package e2b_test).
type HeapWatch struct {
	base  uint64
	peak  atomic.Uint64
	alloc uint64
	stop  chan struct{}
	wg    sync.WaitGroup
}

// StartHeapWatch collects garbage and starts sampling.
func StartHeapWatch() *HeapWatch {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &HeapWatch{base: ms.HeapInuse, alloc: ms.TotalAlloc, stop: make(chan struct{})}
	h.peak.Store(ms.HeapInuse)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > h.peak.Load() {
					h.peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak growth in MiB.
func (h *HeapWatch) Stop() float64 {
	close(h.stop)
	h.wg.Wait()
	return float64(int64(h.peak.Load())-int64(h.base)) / (1 << 20)
}

// Report stops sampling, reports the peak growth and the bytes allocated per
// operation as metrics named after prefix, and returns the growth in MiB.
func (h *HeapWatch) Report(b *testing.B, prefix string) float64 {
	growth := h.Stop()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(growth, prefix+"-peak-heap-growth-MiB")
	b.ReportMetric(float64(ms.TotalAlloc-h.alloc)/(1<<20)/float64(b.N), prefix+"-allocated-MiB/op")
	return growth
}
