package e2b

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// tailBuffer keeps the last max bytes written to it and counts lines, so a
// command printing gigabytes costs at most 2*max bytes of memory.
type tailBuffer struct {
	max      int
	buf      []byte
	total    int64
	newlines int
	lastByte byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	t.total += int64(len(p))
	t.newlines += bytes.Count(p, []byte{'\n'})
	t.lastByte = p[len(p)-1]
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		// Compact rarely: amortised O(1) per byte, memory bounded by 2*max.
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
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
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	if t.Truncated() {
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
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
