package e2b

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// execRun is the state of one Exec between the start and the end event.
type execRun struct {
	envd *Envd
	req  ExecRequest
	pid  uint32
	ctx  context.Context // the caller's; its cancellation kills the process

	out      [2]*tailBuffer
	batch    [2]outputBatcher
	timedOut bool
}

type streamItem struct {
	ev  ProcessEvent
	err error
}

// wait relays events until the process ends, killing it on timeout or when
// the caller's context is cancelled.
func (r *execRun) wait(stream *ProcessStream) (*ExecResult, error) {
	items := make(chan streamItem, 4)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			ev, err := stream.Next()
			select {
			case items <- streamItem{ev, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var timeoutC <-chan time.Time
	if r.req.Timeout > 0 {
		t := time.NewTimer(r.req.Timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	// Batches need a clock only when someone receives them.
	var tickC <-chan time.Time
	if r.req.OnOutput != nil {
		ticker := time.NewTicker(max(r.req.BatchInterval/2, time.Millisecond))
		defer ticker.Stop()
		tickC = ticker.C
	}
	cancelled := r.ctx.Done()
	var graceC <-chan time.Time
	killed := false

	for {
		select {
		case it := <-items:
			if it.err != nil {
				return r.streamFailed(it.err, killed)
			}
			if res, end := r.handle(it.ev); end {
				return r.finish(res)
			}
		case now := <-tickC:
			r.tick(now)
		case <-timeoutC:
			r.timedOut = true
			timeoutC = nil
			r.kill()
			killed = true
			graceC = time.After(killGrace)
		case <-cancelled:
			cancelled = nil
			r.kill()
			killed = true
			graceC = time.After(killGrace)
		case <-graceC:
			// The kill was sent but envd never confirmed the end.
			return r.finish(r.result(ProcessEvent{ExitCode: -1, Status: "no end event after SIGKILL"}))
		}
	}
}

// handle processes one event and reports whether it was the end.
func (r *execRun) handle(ev ProcessEvent) (*ExecResult, bool) {
	switch ev.Kind {
	case EventStdout:
		r.write(Stdout, ev.Data)
	case EventStderr:
		r.write(Stderr, ev.Data)
	case EventEnd:
		return r.result(ev), true
	}
	return nil, false
}

func (r *execRun) write(s OutputStream, data []byte) {
	r.out[s].Write(data)
	if r.req.OnOutput != nil {
		r.batch[s].add(data, time.Now(), r.req.BatchBytes, r.emitter(s))
	}
}

func (r *execRun) tick(now time.Time) {
	for _, s := range []OutputStream{Stdout, Stderr} {
		r.batch[s].tick(now, r.req.BatchInterval, r.emitter(s))
	}
}

func (r *execRun) emitter(s OutputStream) func([]byte) {
	return func(b []byte) { r.req.OnOutput(OutputBatch{Stream: s, Text: strings.ToValidUTF8(string(b), "\uFFFD")}) }
}

func (r *execRun) flushAll() {
	if r.req.OnOutput == nil {
		return
	}
	for _, s := range []OutputStream{Stdout, Stderr} {
		r.batch[s].flush(r.emitter(s))
	}
}

func (r *execRun) result(end ProcessEvent) *ExecResult {
	res := &ExecResult{
		PID:             r.pid,
		ExitCode:        exitCodeOf(end),
		Stdout:          r.out[Stdout].String(),
		Stderr:          r.out[Stderr].String(),
		StdoutTruncated: r.out[Stdout].Truncated(),
		StderrTruncated: r.out[Stderr].Truncated(),
		TotalLines:      r.out[Stdout].Lines() + r.out[Stderr].Lines(),
		TimedOut:        r.timedOut,
		Status:          end.Status,
	}
	if r.timedOut {
		res.ExitCode = ExitCodeTimeout
	}
	return res
}

// finish flushes pending output and turns a cancellation into an error.
func (r *execRun) finish(res *ExecResult) (*ExecResult, error) {
	r.flushAll()
	if err := r.ctx.Err(); err != nil && !r.timedOut {
		return res, fmt.Errorf("exec cancelled, process %d killed: %w", r.pid, err)
	}
	return res, nil
}

// streamFailed handles a stream that broke before the end event.
func (r *execRun) streamFailed(err error, killed bool) (*ExecResult, error) {
	if killed {
		// We killed it; the stream closing is expected.
		return r.finish(r.result(ProcessEvent{ExitCode: -1, Status: "killed"}))
	}
	r.flushAll()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("envd closed the stream of process %d before it ended", r.pid)
	}
	return nil, err
}

// kill sends SIGKILL with a fresh context: the caller's may be cancelled.
func (r *execRun) kill() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), killGrace)
	defer cancel()
	// A process that already ended answers not_found: nothing left to kill.
	_ = r.envd.SendSignal(ctx, r.pid, "SIGKILL")
}

// stdinFeed streams req.Stdin to the process in the background.
type stdinFeed struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done closes
}

// startStdin feeds req.Stdin with SendInput and then closes stdin.
func (r *execRun) startStdin(ctx context.Context) *stdinFeed {
	ctx, cancel := context.WithCancel(ctx)
	f := &stdinFeed{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = r.feedStdin(ctx)
	}()
	return f
}

// finish stops the feeding (the process has ended) and reports a failure
// that happened before.
func (f *stdinFeed) finish() error {
	if f == nil {
		return nil
	}
	f.cancel()
	<-f.done
	return f.err
}

// feedStdin streams req.Stdin with SendInput (retried as the transport
// allows, see SendInput), then closes stdin. A failure closes stdin too, so
// that the process sees the end of its input instead of waiting for the rest
// until its timeout, and is returned. A process that ended before reading
// everything is not a failure, nor is the end of the run.
func (r *execRun) feedStdin(ctx context.Context) error {
	buf := make([]byte, stdinChunk)
	var sent int64
	for {
		n, rerr := r.req.Stdin.Read(buf)
		if n > 0 {
			if err := r.envd.SendInput(ctx, r.pid, buf[:n]); err != nil {
				if ctx.Err() != nil || IsNotFound(err) {
					return nil
				}
				r.closeStdin(ctx)
				return fmt.Errorf("sending stdin to process %d failed after %d bytes, so its stdin was closed early: %w", r.pid, sent, err)
			}
			sent += int64(n)
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			r.closeStdin(ctx)
			return fmt.Errorf("reading the stdin for process %d failed after %d bytes, so its stdin was closed early: %w", r.pid, sent, rerr)
		}
	}
	if err := r.envd.CloseStdin(ctx, r.pid); err != nil && ctx.Err() == nil && !IsNotFound(err) {
		return fmt.Errorf("closing the stdin of process %d: %w", r.pid, err)
	}
	return nil
}

// closeStdin closes stdin after a failure, with a context of its own: the
// failure may be the caller's context ending.
func (r *execRun) closeStdin(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
	defer cancel()
	_ = r.envd.CloseStdin(cctx, r.pid)
}

// exitCodeOf maps envd's end event to a shell-style exit code: a death by
// signal N becomes 128+N as bash reports it.
func exitCodeOf(end ProcessEvent) int {
	if end.Exited {
		return int(end.ExitCode)
	}
	if name, ok := strings.CutPrefix(end.Status, "signal: "); ok {
		if n, known := signalNumbers[name]; known {
			return 128 + n
		}
	}
	return int(end.ExitCode)
}

// signalNumbers are Go's descriptions of the common Linux signals.
var signalNumbers = map[string]int{
	"hangup": 1, "interrupt": 2, "quit": 3, "illegal instruction": 4, "aborted": 6,
	"killed": 9, "segmentation fault": 11, "broken pipe": 13, "terminated": 15,
}
