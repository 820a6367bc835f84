package emulator

import "time"

// SetLimitsClock makes the rate buckets of s read now instead of the time, so that no test
// depends on how fast the machine answers. It exists for the package's own tests only.
func SetLimitsClock(s *Server, now func() time.Time) {
	s.limits.mu.Lock()
	s.limits.now = now
	s.limits.mu.Unlock()
}
