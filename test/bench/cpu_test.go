package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cpuNow returns the CPU time used so far by this process (the emulator)
// and by its finished children (the CLI runs, the provider they start and the
// sandboxes' shells).
func cpuNow() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// cpuWatch samples the CPU time of the processes whose executable lives in
// dir (the provider the CLI starts) and keeps the last value seen per PID.
type cpuWatch struct {
	dir  string
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	last map[string]time.Duration
}

func watchCPU(dir string) *cpuWatch {
	w := &cpuWatch{dir: dir, stop: make(chan struct{}), done: make(chan struct{}), last: map[string]time.Duration{}}
	go func() {
		defer close(w.done)
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *cpuWatch) sample() {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || filepath.Dir(exe) != w.dir {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name: utime and stime are the 12th and 13th.
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		w.mu.Lock()
		w.last[e.Name()] = time.Duration(u+s) * 10 * time.Millisecond // clock ticks of 10 ms
		w.mu.Unlock()
	}
}

// Stop returns the CPU time of every provider process seen.
func (w *cpuWatch) Stop() time.Duration {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	var total time.Duration
	for _, d := range w.last {
		total += d
	}
	return total
}
