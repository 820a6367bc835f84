package store

import "time"

// TeamSample is the team's figures at one moment: the sandboxes running and
// the sandboxes started per second since the previous sample.
type TeamSample struct {
	At         time.Time
	Concurrent int32
	StartRate  float64
}

// CountStart counts a sandbox start towards the next sample's start rate.
func (st *Store) CountStart() {
	st.mu.Lock()
	st.starts++
	st.mu.Unlock()
}

// SampleTeam records a sample of running sandboxes at now, keeping the
// newest keep samples; the start rate spans the time since the previous
// sample (interval for the first).
func (st *Store) SampleTeam(now time.Time, running int32, interval time.Duration, keep int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	window := interval
	if n := len(st.samples); n > 0 {
		window = now.Sub(st.samples[n-1].At)
	}
	rate := 0.0
	if window > 0 {
		rate = float64(st.starts) / window.Seconds()
	}
	st.starts = 0
	st.samples = append(st.samples, TeamSample{At: now.UTC().Truncate(time.Second), Concurrent: running, StartRate: rate})
	if len(st.samples) > keep {
		st.samples = append([]TeamSample(nil), st.samples[len(st.samples)-keep:]...)
	}
}

// TeamSamples lists the samples taken from start (to the second) to end.
func (st *Store) TeamSamples(start, end time.Time) []TeamSample {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []TeamSample
	for _, t := range st.samples {
		if !t.At.Before(start.Truncate(time.Second)) && !t.At.After(end) {
			out = append(out, t)
		}
	}
	return out
}
