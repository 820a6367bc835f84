package e2b

import (
	"strings"
	"testing"
	"time"
)

func TestTailBufferKeepsLastBytesAndCountsLines(t *testing.T) {
	tb := newTailBuffer(10)
	tb.Write([]byte("one\ntwo\n"))
	if tb.Truncated() || tb.String() != "one\ntwo\n" || tb.Lines() != 2 {
		t.Fatalf("short write: truncated=%v %q lines=%d", tb.Truncated(), tb.String(), tb.Lines())
	}
	tb.Write([]byte("three\nfour"))
	if !tb.Truncated() {
		t.Fatal("want truncated after 18 bytes in a 10-byte tail")
	}
	if got := tb.String(); got != "three\nfour" {
		t.Fatalf("tail = %q, want %q", got, "three\nfour")
	}
	if tb.Lines() != 4 {
		t.Fatalf("lines = %d, want 4 (last one unterminated)", tb.Lines())
	}
}

func TestTailBufferLargeWritesStayBounded(t *testing.T) {
	tb := newTailBuffer(1024)
	chunk := []byte(strings.Repeat("x", 999) + "\n")
	for range 10000 {
		tb.Write(chunk)
		if cap(tb.ring) > 1024 {
			t.Fatalf("buffer grew to %d bytes for a 1024-byte tail", cap(tb.ring))
		}
	}
	if tb.Lines() != 10000 || len(tb.String()) != 1024 {
		t.Fatalf("lines=%d len=%d", tb.Lines(), len(tb.String()))
	}
}

// Writes of every size wrap the ring and leave exactly the last max bytes, in order.
func TestTailBufferRingKeepsTheLastBytes(t *testing.T) {
	var all []byte
	tb := newTailBuffer(100)
	for i := range 300 {
		p := []byte(strings.Repeat(string(rune('a'+i%26)), i%37))
		all = append(all, p...)
		tb.Write(p)
		want := all[max(0, len(all)-100):]
		if got := tb.String(); got != string(want) {
			t.Fatalf("after %d writes: %q, want %q", i+1, got, want)
		}
	}
}

func TestTailBufferDoesNotStartMidCharacter(t *testing.T) {
	tb := newTailBuffer(4)
	tb.Write([]byte("aé€")) // 1 + 2 + 3 bytes: the last 4 start inside "é".
	if got := tb.String(); got != "€" {
		t.Fatalf("tail = %q, want %q", got, "€")
	}
}

func TestOutputBatcherGroupsWholeLines(t *testing.T) {
	var got []string
	emit := func(b []byte) { got = append(got, string(b)) }
	var b outputBatcher
	start := time.Unix(0, 0)

	b.add([]byte("a\nb\npart"), start, 1024, emit)
	b.tick(start.Add(500*time.Millisecond), time.Second, emit)
	if len(got) != 0 {
		t.Fatalf("emitted before the interval: %q", got)
	}
	b.tick(start.Add(time.Second), time.Second, emit)
	if len(got) != 1 || got[0] != "a\nb\n" {
		t.Fatalf("after one interval got %q, want whole lines only", got)
	}
	b.add([]byte("ial\n"), start.Add(1100*time.Millisecond), 1024, emit)
	b.flush(emit)
	if len(got) != 2 || got[1] != "partial\n" {
		t.Fatalf("flush got %q", got)
	}
}

func TestOutputBatcherSplitsAtMaxBytes(t *testing.T) {
	var got []string
	emit := func(b []byte) { got = append(got, string(b)) }
	var b outputBatcher
	b.add([]byte(strings.Repeat("12345678\n", 3)), time.Now(), 20, emit)
	if len(got) != 1 || got[0] != "12345678\n12345678\n" {
		t.Fatalf("got %q, want the first two lines in one batch", got)
	}
	b.add([]byte(strings.Repeat("y", 45)), time.Now(), 20, emit)
	for _, m := range got {
		if len(m) > 20 {
			t.Fatalf("batch of %d bytes exceeds 20", len(m))
		}
	}
}

func TestOutputBatcherFlushesStalePartialLine(t *testing.T) {
	var got []string
	emit := func(b []byte) { got = append(got, string(b)) }
	var b outputBatcher
	start := time.Unix(0, 0)
	b.add([]byte("Password: "), start, 1024, emit)
	b.tick(start.Add(time.Second), time.Second, emit)
	if len(got) != 0 {
		t.Fatalf("partial line emitted after one interval: %q", got)
	}
	b.tick(start.Add(2*time.Second), time.Second, emit)
	if len(got) != 1 || got[0] != "Password: " {
		t.Fatalf("got %q, want the prompt after two intervals", got)
	}
}

func TestExitCodeOf(t *testing.T) {
	cases := []struct {
		ev   ProcessEvent
		want int
	}{
		{ProcessEvent{Exited: true, Status: "exit status 0"}, 0},
		{ProcessEvent{Exited: true, ExitCode: 3, Status: "exit status 3"}, 3},
		{ProcessEvent{ExitCode: -1, Status: "signal: killed"}, 137},
		{ProcessEvent{ExitCode: -1, Status: "signal: terminated"}, 143},
		{ProcessEvent{ExitCode: -1, Status: "signal: user defined signal 1"}, -1},
	}
	for _, c := range cases {
		if got := exitCodeOf(c.ev); got != c.want {
			t.Errorf("exitCodeOf(%+v) = %d, want %d", c.ev, got, c.want)
		}
	}
}
