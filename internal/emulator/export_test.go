package emulator

import "time"

// SetLimitsClock makes the rate buckets of s read now instead of the time, so that no test
// depends on how fast the machine answers. It exists for the package's own tests only.
func SetLimitsClock(s *Server, now func() time.Time) {
	s.limits.mu.Lock()
	s.limits.now = now
	s.limits.mu.Unlock()
}

// SetRequestValidation turns the control plane's request validation on or off: for the
// package's own tests only (a benchmark with and without it; a test showing the spec test fails
// without it). The emulator itself always validates.
func SetRequestValidation(s *Server, on bool) { s.validateRequests.Store(on) }
