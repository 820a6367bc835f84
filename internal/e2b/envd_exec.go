package e2b

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Defaults for ExecRequest fields left at zero.
const (
	DefaultMaxOutputBytes = 64 << 10
	DefaultBatchInterval  = time.Second
	DefaultBatchBytes     = 16 << 10

	// ExitCodeTimeout is reported when the command ran past its timeout and was
	// killed, as GNU timeout(1) does.
	ExitCodeTimeout = 124

	execTagPrefix = "e2b-terraform-exec-"
	// killGrace bounds how long Exec waits, after killing the process, for the
	// end event that proves it is gone.
	killGrace = 10 * time.Second
	// stdinChunk is the size of each SendInput call.
	stdinChunk = 64 << 10
)

// OutputStream tells stdout and stderr apart in an OutputBatch.
type OutputStream int

const (
	Stdout OutputStream = iota
	Stderr
)

func (s OutputStream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// OutputBatch is a piece of a command's output, usually whole lines, handed to
// ExecRequest.OnOutput at most every BatchInterval or BatchBytes.
type OutputBatch struct {
	Stream OutputStream
	Text   string
}

// ExecRequest describes one shell command run through envd.
type ExecRequest struct {
	Command string
	Cwd     string
	Env     map[string]string
	// Stdin, when not nil, is streamed to the process and then closed; when nil
	// the process reads /dev/null. If it cannot all be sent, stdin is closed
	// early and Exec returns the result together with an error saying so.
	Stdin io.Reader
	// Timeout kills the process with SIGKILL after this long (0 = no limit).
	Timeout time.Duration
	// MaxOutputBytes is the size of the stdout and stderr tails kept in the
	// result (each); 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// OnOutput, when set, receives the output as it arrives, batched. It is
	// called from one goroutine and should not block for long.
	OnOutput func(OutputBatch)
	// BatchInterval and BatchBytes tune OnOutput batching (0 = defaults).
	BatchInterval time.Duration
	BatchBytes    int
}

// ExecResult is the outcome of a command that ran to its end or was killed at
// its timeout.
type ExecResult struct {
	PID      uint32
	ExitCode int
	// Stdout and Stderr are the last MaxOutputBytes of each stream.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	// TotalLines counts the lines of stdout and stderr together (a final line
	// without a newline counts too).
	TotalLines int
	TimedOut   bool
	// Status is envd's description of the end, e.g. "exit status 1" or
	// "signal: killed".
	Status string
}

// Truncated reports whether either tail lost its beginning.
func (r *ExecResult) Truncated() bool { return r.StdoutTruncated || r.StderrTruncated }

// Exec runs r.Command with `bash -l -c` as the Envd's user and waits for it to
// end. The process never outlives the call: when ctx is cancelled or the
// timeout passes it is killed with SIGKILL. A timeout is not an error: the
// result has TimedOut set and ExitCode 124. A cancelled ctx returns its error.
func (e *Envd) Exec(ctx context.Context, r ExecRequest) (*ExecResult, error) {
	if strings.TrimSpace(r.Command) == "" {
		return nil, errors.New("exec: empty command")
	}
	r = withExecDefaults(r)
	tag, err := newExecTag()
	if err != nil {
		return nil, err
	}

	// The stream outlives ctx on purpose: after a cancellation we still want
	// to see the end event of the process we kill. killGrace bounds that.
	streamCtx, cancelStream := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelStream()
	stopAfterCancel := context.AfterFunc(ctx, func() {
		time.AfterFunc(killGrace, cancelStream)
	})
	defer stopAfterCancel()

	start := func() (*ProcessStream, error) {
		return e.StartProcess(streamCtx, StartProcessRequest{
			Process: ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", r.Command}, Envs: r.Env, Cwd: r.Cwd},
			Stdin:   r.Stdin != nil,
			Tag:     tag,
			Timeout: backstopTimeout(r.Timeout),
		})
	}
	stream, err := start()
	var te *transportError
	if err != nil && ctx.Err() == nil && errors.As(err, &te) {
		stream, err = e.settleLostStart(streamCtx, tag, err, start)
	}
	if err != nil {
		if ctx.Err() != nil {
			e.killByTag(ctx, tag)
			return nil, fmt.Errorf("exec cancelled: %w", ctx.Err())
		}
		return nil, err
	}
	defer func() { _ = stream.Close() }()

	run := &execRun{envd: e, req: r, pid: stream.PID(), ctx: ctx}
	run.out[Stdout] = newTailBuffer(r.MaxOutputBytes)
	run.out[Stderr] = newTailBuffer(r.MaxOutputBytes)
	var feed *stdinFeed
	if r.Stdin != nil {
		feed = run.startStdin(streamCtx)
	}
	res, err := run.wait(stream)
	if ferr := feed.finish(); ferr != nil && err == nil {
		err = fmt.Errorf("exec: %w", ferr)
	}
	return res, err
}

// settleLostStart handles a start whose answer was lost with the connection:
// the request may or may not have reached envd. The process's tag tells. If
// a process carries it, attach to it (output it printed before is missed);
// if none does, nothing is running, so start it once more. A command that
// started and already finished in that moment is started again: envd lists
// only running processes.
func (e *Envd) settleLostStart(ctx context.Context, tag string, startErr error, start func() (*ProcessStream, error)) (*ProcessStream, error) {
	procs, err := e.ListProcesses(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w (and checking whether the command started failed: %v)", startErr, err)
	}
	for _, p := range procs {
		if p.Tag == tag {
			return e.ConnectProcess(ctx, p.PID)
		}
	}
	return start()
}

func withExecDefaults(r ExecRequest) ExecRequest {
	if r.MaxOutputBytes <= 0 {
		r.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if r.BatchInterval <= 0 {
		r.BatchInterval = DefaultBatchInterval
	}
	if r.BatchBytes <= 0 {
		r.BatchBytes = DefaultBatchBytes
	}
	return r
}

// backstopTimeout asks envd to kill the process a little after our own timer
// would, so a lost SIGKILL request still cannot leave it running.
func backstopTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + 30*time.Second
}

func newExecTag() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("exec: random tag: %w", err)
	}
	return execTagPrefix + hex.EncodeToString(b), nil
}

// killByTag kills a process whose start we did not see through (the call was
// cancelled in flight), found by the tag it was started with.
func (e *Envd) killByTag(ctx context.Context, tag string) {
	killCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
	defer cancel()
	procs, err := e.ListProcesses(killCtx)
	if err != nil {
		return
	}
	for _, p := range procs {
		if p.Tag == tag {
			_ = e.SendSignal(killCtx, p.PID, "SIGKILL")
		}
	}
}
