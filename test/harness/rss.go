package harness

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PeakRSS watches every process whose executable lives in dir (the provider
// binary that the CLI starts) and records the largest VmHWM (peak resident set)
// seen. VmHWM is a high-water mark kept by the kernel, so sampling only has to
// catch the process once before it exits.
type PeakRSS struct {
	dir  string
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak int64 // bytes
}

// WatchPeakRSS starts sampling /proc every 20 ms.
func WatchPeakRSS(dir string) *PeakRSS {
	p := &PeakRSS{dir: dir, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *PeakRSS) loop() {
	defer close(p.done)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		p.sample()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

func (p *PeakRSS) sample() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || filepath.Dir(exe) != p.dir {
			continue
		}
		if hwm := readVmHWM(filepath.Join("/proc", e.Name(), "status")); hwm > 0 {
			p.mu.Lock()
			if hwm > p.peak {
				p.peak = hwm
			}
			p.mu.Unlock()
		}
	}
}

// Stop ends sampling and returns the peak in bytes (0 if never seen).
func (p *PeakRSS) Stop() int64 {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

func readVmHWM(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0
			}
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
