package e2b

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// tailBuffer keeps the last max bytes written to it and counts lines: a ring
// of at most max bytes, so a command printing gigabytes costs max bytes of
// memory (and one copy of them when the tail is read).
type tailBuffer struct {
	max      int
	ring     []byte // grows to max, then is written round
	pos      int    // where the next byte goes once the ring is full
	total    int64
	newlines int
	lastByte byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) {
	if len(p) == 0 || t.max <= 0 {
		return
	}
	t.total += int64(len(p))
	t.newlines += bytes.Count(p, []byte{'\n'})
	t.lastByte = p[len(p)-1]
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if len(t.ring) < t.max {
		n := min(len(p), t.max-len(t.ring))
		if cap(t.ring) < len(t.ring)+n {
			// Double, but never past max: the ring is the only copy ever kept.
			grown := make([]byte, len(t.ring), min(t.max, max(2*cap(t.ring), len(t.ring)+n, 4096)))
			copy(grown, t.ring)
			t.ring = grown
		}
		t.ring = append(t.ring, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		n := copy(t.ring[t.pos:], p)
		p = p[n:]
		t.pos = (t.pos + n) % t.max
	}
}

// Truncated reports whether bytes were dropped from the front.
func (t *tailBuffer) Truncated() bool { return t.total > int64(t.max) }

// Lines counts newline-terminated lines plus a final unterminated one.
func (t *tailBuffer) Lines() int {
	if t.total > 0 && t.lastByte != '\n' {
		return t.newlines + 1
	}
	return t.newlines
}

// String returns the tail as valid UTF-8, starting at a character boundary.
func (t *tailBuffer) String() string {
	older, newer := t.ring[t.pos:], t.ring[:t.pos]
	if t.Truncated() {
		for i := 0; i < utf8.UTFMax; i++ {
			switch {
			case len(older) > 0 && !utf8.RuneStart(older[0]):
				older = older[1:]
			case len(older) == 0 && len(newer) > 0 && !utf8.RuneStart(newer[0]):
				newer = newer[1:]
			}
		}
	}
	var b strings.Builder
	b.Grow(len(older) + len(newer))
	b.Write(older)
	b.Write(newer)
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// outputBatcher groups output into messages of whole lines: it emits when
// maxBytes are pending, on a tick for the complete lines pending, and a
// partial line once it has waited two intervals.
type outputBatcher struct {
	pending []byte
	since   time.Time
}

func (b *outputBatcher) add(p []byte, now time.Time, maxBytes int, emit func([]byte)) {
	if len(b.pending) == 0 {
		b.since = now
	}
	b.pending = append(b.pending, p...)
	for len(b.pending) >= maxBytes {
		cut := bytes.LastIndexByte(b.pending[:maxBytes], '\n') + 1
		if cut == 0 {
			cut = runeBoundary(b.pending, maxBytes)
		}
		b.emit(cut, now, emit)
	}
}

func (b *outputBatcher) tick(now time.Time, interval time.Duration, emit func([]byte)) {
	if len(b.pending) == 0 || now.Sub(b.since) < interval {
		return
	}
	if cut := bytes.LastIndexByte(b.pending, '\n') + 1; cut > 0 {
		b.emit(cut, now, emit)
		return
	}
	if now.Sub(b.since) >= 2*interval {
		b.emit(len(b.pending), now, emit)
	}
}

func (b *outputBatcher) flush(emit func([]byte)) {
	if len(b.pending) > 0 {
		b.emit(len(b.pending), time.Time{}, emit)
	}
	b.pending = nil
}

// emit hands out pending[:n] and keeps the rest; the rest starts waiting now.
func (b *outputBatcher) emit(n int, now time.Time, emit func([]byte)) {
	emit(b.pending[:n])
	rest := copy(b.pending, b.pending[n:])
	b.pending = b.pending[:rest]
	b.since = now
}

// runeBoundary returns the largest i <= n that does not split a UTF-8
// character in p (or n itself when none is found nearby).
func runeBoundary(p []byte, n int) int {
	if n >= len(p) {
		return len(p)
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	return n
}
