package e2b

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProcessConfig is what to run.
type ProcessConfig struct {
	Cmd  string
	Args []string
	Envs map[string]string
	Cwd  string
}

// StartProcessRequest starts a process.
type StartProcessRequest struct {
	Process ProcessConfig
	Stdin   bool   // keep stdin open for SendInput (else the process reads /dev/null)
	Tag     string // optional tag shown by ListProcesses
	Timeout time.Duration
	// Timeout is sent as Connect-Timeout-Ms: envd kills the process when it
	// elapses. 0 = no limit.
}

// ProcessEventKind tells which field of ProcessEvent is meaningful.
type ProcessEventKind int

// Process event kinds.
const (
	EventStart ProcessEventKind = iota
	EventStdout
	EventStderr
	EventEnd
	EventKeepalive
)

func (k ProcessEventKind) String() string {
	switch k {
	case EventStart:
		return "start"
	case EventStdout:
		return "stdout"
	case EventStderr:
		return "stderr"
	case EventEnd:
		return "end"
	case EventKeepalive:
		return "keepalive"
	}
	return fmt.Sprintf("ProcessEventKind(%d)", int(k))
}

// ProcessEvent is one message of a process stream.
type ProcessEvent struct {
	Kind     ProcessEventKind
	PID      uint32 // EventStart
	Data     []byte // EventStdout / EventStderr
	ExitCode int32  // EventEnd (-1 when killed by a signal)
	Exited   bool   // EventEnd: exited normally
	Status   string // EventEnd: e.g. "exit status 1", "signal: killed"
	Error    string // EventEnd: envd's error text, if any
}

type wireProcessConfig struct {
	Cmd  string            `json:"cmd"`
	Args []string          `json:"args,omitempty"`
	Envs map[string]string `json:"envs,omitempty"`
	Cwd  *string           `json:"cwd,omitempty"`
}

func (p ProcessConfig) wire() wireProcessConfig {
	w := wireProcessConfig{Cmd: p.Cmd, Args: p.Args, Envs: p.Envs}
	if p.Cwd != "" {
		w.Cwd = &p.Cwd
	}
	return w
}

type processSelector struct {
	PID uint32 `json:"pid"`
}

type wireProcessEvent struct {
	Event struct {
		Start *struct {
			PID uint32 `json:"pid"`
		} `json:"start"`
		Data *struct {
			Stdout []byte `json:"stdout"`
			Stderr []byte `json:"stderr"`
			Pty    []byte `json:"pty"`
		} `json:"data"`
		End *struct {
			ExitCode int32   `json:"exitCode"`
			Exited   bool    `json:"exited"`
			Status   string  `json:"status"`
			Error    *string `json:"error"`
		} `json:"end"`
		Keepalive *struct{} `json:"keepalive"`
	} `json:"event"`
}

func decodeProcessEvent(payload []byte) (ProcessEvent, error) {
	var w wireProcessEvent
	if err := json.Unmarshal(payload, &w); err != nil {
		return ProcessEvent{}, fmt.Errorf("malformed process event: %w", err)
	}
	ev := w.Event
	switch {
	case ev.Start != nil:
		return ProcessEvent{Kind: EventStart, PID: ev.Start.PID}, nil
	case ev.Data != nil && ev.Data.Stderr != nil:
		return ProcessEvent{Kind: EventStderr, Data: ev.Data.Stderr}, nil
	case ev.Data != nil && ev.Data.Pty != nil:
		return ProcessEvent{Kind: EventStdout, Data: ev.Data.Pty}, nil
	case ev.Data != nil:
		return ProcessEvent{Kind: EventStdout, Data: ev.Data.Stdout}, nil
	case ev.End != nil:
		out := ProcessEvent{Kind: EventEnd, ExitCode: ev.End.ExitCode, Exited: ev.End.Exited, Status: ev.End.Status}
		if ev.End.Error != nil {
			out.Error = *ev.End.Error
		}
		return out, nil
	case ev.Keepalive != nil:
		return ProcessEvent{Kind: EventKeepalive}, nil
	}
	return ProcessEvent{}, fmt.Errorf("process event without a known member: %s", truncate(payload, 200))
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// ProcessStream delivers a process's events as they arrive.
type ProcessStream struct {
	e         *Envd
	op        string
	ctx       context.Context
	cancel    context.CancelFunc
	body      io.ReadCloser
	er        *envelopeReader
	pid       uint32
	finished  atomic.Bool // set by Next at the end and by Close from any goroutine
	closeOnce sync.Once
}

// PID is the process's ID (known once the start event arrived).
func (s *ProcessStream) PID() uint32 { return s.pid }

// Next returns the next event. After the end-stream message it returns
// io.EOF, or the stream's error (an *APIError, e.g. deadline_exceeded when
// the Connect timeout killed the process). A connection cut without
// end-stream is reported as IsSandboxNotRunning when envd's health check
// says the sandbox is gone.
func (s *ProcessStream) Next() (ProcessEvent, error) {
	if s.finished.Load() {
		return ProcessEvent{}, io.EOF
	}
	flags, payload, err := s.er.next()
	if err != nil {
		s.finished.Store(true)
		return ProcessEvent{}, s.cutError(err)
	}
	if flags&flagEndStream != 0 {
		s.finished.Store(true)
		if err := endStreamError(s.op, s.e.t.SandboxID, payload); err != nil {
			return ProcessEvent{}, err
		}
		return ProcessEvent{}, io.EOF
	}
	if flags&flagCompressed != 0 {
		s.finished.Store(true)
		return ProcessEvent{}, fmt.Errorf("%s: compressed envelope received but compression was not negotiated", opName(s.op, s.e.t.SandboxID))
	}
	ev, err := decodeProcessEvent(payload)
	if err != nil {
		s.finished.Store(true)
		return ProcessEvent{}, fmt.Errorf("%s: %w", opName(s.op, s.e.t.SandboxID), err)
	}
	if ev.Kind == EventStart {
		s.pid = ev.PID
	}
	return ev, nil
}

// cutError explains a stream that ended without end-stream.
func (s *ProcessStream) cutError(err error) error {
	if s.ctx.Err() != nil {
		return fmt.Errorf("%s: %w", opName(s.op, s.e.t.SandboxID), s.ctx.Err())
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 10*time.Second)
	defer cancel()
	if running, herr := s.e.Health(hctx); herr == nil && !running {
		return notRunningError(s.op, s.e.t.SandboxID, "the stream was cut: "+err.Error())
	}
	return &transportError{op: s.op, sandboxID: s.e.t.SandboxID, err: fmt.Errorf("stream ended without end-of-stream: %w", err)}
}

// Close stops reading; the process keeps running unless envd's timeout ends it.
func (s *ProcessStream) Close() error {
	s.closeOnce.Do(func() {
		s.finished.Store(true)
		s.cancel()
		_ = s.body.Close()
	})
	return nil
}

// StartProcess starts a process and returns once envd reported its PID.
// 429 is retried; 5xx and connection errors are not (it could start twice).
func (e *Envd) StartProcess(ctx context.Context, r StartProcessRequest) (*ProcessStream, error) {
	stdin := r.Stdin
	in := struct {
		Process wireProcessConfig `json:"process"`
		Tag     *string           `json:"tag,omitempty"`
		Stdin   *bool             `json:"stdin"`
	}{Process: r.Process.wire(), Stdin: &stdin}
	if r.Tag != "" {
		in.Tag = &r.Tag
	}
	return e.processStream(ctx, "envd Process/Start", "process.Process/Start", retryRejected, in, r.Timeout)
}

// ConnectProcess attaches to a running process (no replay of earlier output).
func (e *Envd) ConnectProcess(ctx context.Context, pid uint32) (*ProcessStream, error) {
	in := struct {
		Process processSelector `json:"process"`
	}{processSelector{pid}}
	return e.processStream(ctx, "envd Process/Connect", "process.Process/Connect", retryIdempotent, in, 0)
}

func (e *Envd) processStream(ctx context.Context, op, procedure string, class retryClass, in any, timeout time.Duration) (*ProcessStream, error) {
	sctx, cancel := context.WithCancel(ctx)
	resp, err := e.openStream(sctx, op, procedure, class, in, timeout)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &ProcessStream{e: e, op: op, ctx: sctx, cancel: cancel, body: resp.Body, er: newEnvelopeReader(resp.Body)}
	ev, err := s.Next()
	if err == nil && ev.Kind != EventStart {
		err = fmt.Errorf("%s: expected the start event first, got %s", opName(op, e.t.SandboxID), ev.Kind)
	}
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: stream ended before the start event", opName(op, e.t.SandboxID))
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// SendInput writes to a process's stdin (started with Stdin: true). A 429 or
// a gateway's 5xx is sent again (nothing reached the process); a lost
// connection is not: the input could arrive twice.
func (e *Envd) SendInput(ctx context.Context, pid uint32, data []byte) error {
	in := struct {
		Process processSelector `json:"process"`
		Input   struct {
			Stdin []byte `json:"stdin"`
		} `json:"input"`
	}{Process: processSelector{pid}}
	in.Input.Stdin = data
	if in.Input.Stdin == nil {
		in.Input.Stdin = []byte{}
	}
	return e.unary(ctx, "envd Process/SendInput", "process.Process/SendInput", retryRejected, in, nil)
}

// CloseStdin closes a process's stdin (envd ≥ 0.5.2).
func (e *Envd) CloseStdin(ctx context.Context, pid uint32) error {
	in := struct {
		Process processSelector `json:"process"`
	}{processSelector{pid}}
	return e.unary(ctx, "envd Process/CloseStdin", "process.Process/CloseStdin", retryIdempotent, in, nil)
}

// SendSignal sends "SIGKILL" or "SIGTERM" ("SIGNAL_SIGKILL" is accepted too).
func (e *Envd) SendSignal(ctx context.Context, pid uint32, signal string) error {
	sig := strings.ToUpper(strings.TrimSpace(signal))
	if !strings.HasPrefix(sig, "SIGNAL_") {
		sig = "SIGNAL_" + sig
	}
	if sig != "SIGNAL_SIGKILL" && sig != "SIGNAL_SIGTERM" {
		return fmt.Errorf("envd Process/SendSignal: unsupported signal %q (want SIGKILL or SIGTERM)", signal)
	}
	in := struct {
		Process processSelector `json:"process"`
		Signal  string          `json:"signal"`
	}{processSelector{pid}, sig}
	return e.unary(ctx, "envd Process/SendSignal", "process.Process/SendSignal", retryRateLimited, in, nil)
}

// ProcessInfo describes a running process.
type ProcessInfo struct {
	PID    uint32
	Tag    string
	Config ProcessConfig
}

// ListProcesses lists running processes.
func (e *Envd) ListProcesses(ctx context.Context) ([]ProcessInfo, error) {
	var out struct {
		Processes []struct {
			PID    uint32            `json:"pid"`
			Tag    string            `json:"tag"`
			Config wireProcessConfig `json:"config"`
		} `json:"processes"`
	}
	if err := e.unary(ctx, "envd Process/List", "process.Process/List", retryIdempotent, struct{}{}, &out); err != nil {
		return nil, err
	}
	list := make([]ProcessInfo, 0, len(out.Processes))
	for _, p := range out.Processes {
		cfg := ProcessConfig{Cmd: p.Config.Cmd, Args: p.Config.Args, Envs: p.Config.Envs}
		if p.Config.Cwd != nil {
			cfg.Cwd = *p.Config.Cwd
		}
		list = append(list, ProcessInfo{PID: p.PID, Tag: p.Tag, Config: cfg})
	}
	return list, nil
}
