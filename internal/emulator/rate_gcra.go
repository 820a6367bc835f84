package emulator

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// gcra is one rate limit as E2B's API enforces it: the generic cell rate
// algorithm of go-redis/redis_rate, which its rate-limit middleware uses.
// rate requests per period are let through, and up to burst at once.
type gcra struct {
	rate   float64
	period time.Duration
	burst  int
	tat    time.Time // theoretical arrival time of the next request
}

// gcraResult is what the middleware reads from one decision.
type gcraResult struct {
	allowed    bool
	remaining  int
	retryAfter time.Duration // allowed: -1
	resetAfter time.Duration
}

func (g *gcra) interval() time.Duration {
	return time.Duration(float64(g.period) / g.rate)
}

// allow decides one request at now, as redis_rate's allowN with n = 1: a
// refused request does not move the bucket.
func (g *gcra) allow(now time.Time) gcraResult {
	interval := g.interval()
	tat := g.tat
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	allowAt := newTAT.Add(-time.Duration(g.burst) * interval)
	diff := now.Sub(allowAt)
	if diff < 0 {
		return gcraResult{retryAfter: -diff, resetAfter: tat.Sub(now)}
	}
	g.tat = newTAT
	return gcraResult{allowed: true, remaining: int(diff / interval), retryAfter: -1, resetAfter: newTAT.Sub(now)}
}

// writeHeaders sets the headers E2B's middleware sets on every answer of a
// limited route, and Retry-After (whole seconds, at least 1) on a refusal.
func (r gcraResult) writeHeaders(h http.Header, burst int) {
	h.Set("RateLimit-Limit", strconv.Itoa(burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(r.remaining))
	h.Set("RateLimit-Reset", strconv.FormatInt(int64(math.Ceil(r.resetAfter.Seconds())), 10))
	if !r.allowed {
		h.Set("Retry-After", strconv.Itoa(max(int(r.retryAfter.Seconds()), 1)))
	}
}
