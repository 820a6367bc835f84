package envd

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// Proto-JSON shapes of process.proto (defaults omitted like protojson).

type processSelectorJSON struct {
	PID *connectrpc.FlexUint32 `json:"pid,omitempty"`
	Tag *string                `json:"tag,omitempty"`
}

type processStartJSON struct {
	Process processConfigJSON `json:"process"`
	Pty     json.RawMessage   `json:"pty,omitempty"`
	Tag     *string           `json:"tag,omitempty"`
	Stdin   *bool             `json:"stdin,omitempty"`
}

type startEventJSON struct {
	PID uint32 `json:"pid"`
}

type dataEventJSON struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	Pty    []byte `json:"pty,omitempty"`
}

type endEventJSON struct {
	ExitCode int32  `json:"exitCode,omitempty"`
	Exited   bool   `json:"exited,omitempty"`
	Status   string `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
}

type processEventJSON struct {
	Start     *startEventJSON `json:"start,omitempty"`
	Data      *dataEventJSON  `json:"data,omitempty"`
	End       *endEventJSON   `json:"end,omitempty"`
	Keepalive *struct{}       `json:"keepalive,omitempty"`
}

type processResponseJSON struct {
	Event processEventJSON `json:"event"`
}

type processInputJSON struct {
	Stdin []byte `json:"stdin,omitempty"`
	Pty   []byte `json:"pty,omitempty"`
}

type processInfoJSON struct {
	Config processConfigJSON `json:"config"`
	PID    uint32            `json:"pid"`
	Tag    *string           `json:"tag,omitempty"`
}

const defaultKeepalive = 90 * time.Second

func (sb *Machine) serveProcessRPC(w http.ResponseWriter, r *http.Request, method string) {
	switch method {
	case "Start":
		sb.processStart(w, r)
	case "Connect":
		sb.processConnect(w, r)
	case "StreamInput":
		sb.processStreamInput(w, r)
	case "List", "SendInput", "SendSignal", "CloseStdin", "Update":
		resp, err := sb.processUnary(r, method)
		if err != nil {
			connectrpc.WriteError(w, err)
			return
		}
		connectrpc.WriteUnary(w, resp)
	default:
		connectrpc.WriteError(w, connectrpc.Errorf("unimplemented", "process.Process/%s is not implemented", method))
	}
}

func (sb *Machine) processUnary(r *http.Request, method string) (any, error) {
	if method == "List" {
		var req struct{}
		if err := connectrpc.ReadUnary(r, &req); err != nil {
			return nil, err
		}
		out := []processInfoJSON{}
		for _, p := range sb.procs.list() {
			info := processInfoJSON{Config: p.config, PID: p.pid}
			if p.tag != "" {
				t := p.tag
				info.Tag = &t
			}
			out = append(out, info)
		}
		return map[string]any{"processes": out}, nil
	}
	var req struct {
		Process processSelectorJSON `json:"process"`
		Input   processInputJSON    `json:"input"`
		Signal  json.RawMessage     `json:"signal"`
		Pty     json.RawMessage     `json:"pty"`
	}
	if err := connectrpc.ReadUnary(r, &req); err != nil {
		return nil, err
	}
	p, err := sb.findProcess(req.Process)
	if err != nil {
		return nil, err
	}
	switch method {
	case "SendInput":
		if !p.running() {
			return nil, connectrpc.Errorf("not_found", "process with pid %d not found", p.pid)
		}
		data := req.Input.Stdin
		if p.pty {
			data = append(data, req.Input.Pty...)
		} else if len(req.Input.Pty) > 0 {
			return nil, connectrpc.Errorf("failed_precondition", "process %d has no pty", p.pid)
		}
		if err := p.writeStdin(data); err != nil {
			return nil, err
		}
	case "SendSignal":
		sig, err := parseSignal(req.Signal)
		if err != nil {
			return nil, err
		}
		if !p.running() {
			return nil, connectrpc.Errorf("not_found", "process with pid %d not found", p.pid)
		}
		p.signalGroup(sig)
	case "CloseStdin":
		if p.pty {
			return nil, connectrpc.Errorf("failed_precondition", "cannot close stdin of a pty process")
		}
		p.closeStdin()
	case "Update":
		term, err := parsePty(req.Pty)
		if err != nil {
			return nil, err
		}
		if term != nil {
			if err := p.resize(term); err != nil {
				return nil, err
			}
		}
	}
	return struct{}{}, nil
}

// parseSignal accepts the enum name or number; only SIGTERM and SIGKILL exist.
func parseSignal(raw json.RawMessage) (sandboxos.Signal, error) {
	v := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	switch trimSignalName(v) {
	case "SIGKILL", "9":
		return sandboxos.SigKill, nil
	case "SIGTERM", "15":
		return sandboxos.SigTerm, nil
	}
	return 0, connectrpc.Errorf("unimplemented", "invalid signal: %s", v)
}

// findProcess resolves a ProcessSelector.
func (sb *Machine) findProcess(sel processSelectorJSON) (*process, error) {
	var pid *uint32
	if sel.PID != nil {
		v := uint32(*sel.PID)
		pid = &v
	}
	if pid == nil && sel.Tag == nil {
		return nil, connectrpc.Errorf("invalid_argument", "process selector is required")
	}
	p := sb.procs.find(pid, sel.Tag)
	if p == nil {
		if pid != nil {
			return nil, connectrpc.Errorf("not_found", "process with pid %d not found", *pid)
		}
		return nil, connectrpc.Errorf("not_found", "process with tag %s not found", *sel.Tag)
	}
	return p, nil
}

// streamTimers are a stream's deadline (it never fires for 0) and its
// keepalive timer; stop stops both.
func streamTimers(deadline, keepalive time.Duration) (deadlineC <-chan time.Time, ka *time.Timer, stop func()) {
	ka = time.NewTimer(keepalive)
	if deadline <= 0 {
		return nil, ka, func() { ka.Stop() }
	}
	t := time.NewTimer(deadline)
	return t.C, ka, func() { t.Stop(); ka.Stop() }
}

// streamOptions reads Connect-Timeout-Ms and Keepalive-Ping-Interval.
func streamOptions(r *http.Request) (deadline, keepalive time.Duration) {
	if ms, err := strconv.ParseInt(r.Header.Get("Connect-Timeout-Ms"), 10, 64); err == nil && ms > 0 {
		deadline = time.Duration(ms) * time.Millisecond
	}
	keepalive = defaultKeepalive
	if sec, err := strconv.ParseInt(r.Header.Get("Keepalive-Ping-Interval"), 10, 64); err == nil && sec > 0 {
		keepalive = time.Duration(sec) * time.Second
	}
	return deadline, keepalive
}

func (sb *Machine) processStart(w http.ResponseWriter, r *http.Request) {
	var req processStartJSON
	if err := connectrpc.ReadStreamRequest(r, &req); err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	withStdin := req.Stdin == nil || *req.Stdin
	term, err := parsePty(req.Pty)
	if err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	tag := ""
	if req.Tag != nil {
		tag = *req.Tag
	}
	p, sub, err := sb.procs.start(req.Process, requestUser(r), withStdin, tag, term)
	if err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	deadline, keepalive := streamOptions(r)
	if deadline > 0 {
		p.setDeadline(deadline) // envd ties the process's life to the request deadline
	}
	sb.pumpProcess(w, r, p, sub, deadline, keepalive)
}

func (sb *Machine) processConnect(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Process processSelectorJSON `json:"process"`
	}
	if err := connectrpc.ReadStreamRequest(r, &req); err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	p, err := sb.findProcess(req.Process)
	if err != nil {
		connectrpc.NewStreamWriter(w).End(err)
		return
	}
	sub, ended := p.subscribe()
	if ended != nil {
		sw := connectrpc.NewStreamWriter(w)
		_ = sw.Send(processResponseJSON{Event: processEventJSON{Start: &startEventJSON{PID: p.pid}}})
		_ = sw.Send(endResponse(*ended))
		sw.End(nil)
		return
	}
	deadline, keepalive := streamOptions(r)
	sb.pumpProcess(w, r, p, sub, deadline, keepalive)
}

func endResponse(e endInfo) processResponseJSON {
	return processResponseJSON{Event: processEventJSON{End: &endEventJSON{ExitCode: e.ExitCode, Exited: e.Exited, Status: e.Status, Error: e.Error}}}
}

// pumpProcess streams a process's events until it ends, the deadline passes,
// the client leaves (the process keeps running) or the sandbox stops (the
// connection is dropped without an end-stream frame).
func (sb *Machine) pumpProcess(w http.ResponseWriter, r *http.Request, p *process, sub *subscriber, deadline, keepalive time.Duration) {
	defer p.unsubscribe(sub)
	start := processResponseJSON{Event: processEventJSON{Start: &startEventJSON{PID: p.pid}}}
	keepaliveMsg := processResponseJSON{Event: processEventJSON{Keepalive: &struct{}{}}}
	pumpStream(sb, w, r, start, keepaliveMsg, deadline, keepalive, sub.ch, func(sw *connectrpc.StreamWriter, ev procEvent, _ bool) bool {
		var msg processResponseJSON
		switch ev.kind {
		case evEnd:
			if p.deadlineKilled.Load() {
				sw.End(connectrpc.Errorf("deadline_exceeded", "context deadline exceeded"))
				return true
			}
			if err := sw.Send(endResponse(ev.end)); err == nil {
				sw.End(nil)
			}
			return true
		case evStdout:
			if p.pty {
				msg.Event.Data = &dataEventJSON{Pty: ev.data}
			} else {
				msg.Event.Data = &dataEventJSON{Stdout: ev.data}
			}
		case evStderr:
			msg.Event.Data = &dataEventJSON{Stderr: ev.data}
		}
		return sw.Send(msg) != nil
	})
}

// pumpStream serves a server stream: start first, then each event through
// handle (which sends it and reports whether the stream is over; open is
// false once events is closed), keepaliveMsg when the stream has been quiet
// for keepalive, a deadline_exceeded end at the deadline. It returns when the
// client leaves, and drops the connection without an end-stream frame when
// the sandbox stops.
func pumpStream[E any](sb *Machine, w http.ResponseWriter, r *http.Request, start, keepaliveMsg any, deadline, keepalive time.Duration,
	events <-chan E, handle func(sw *connectrpc.StreamWriter, ev E, open bool) (over bool),
) {
	drop, unregister := sb.addStream()
	defer unregister()
	sw := connectrpc.NewStreamWriter(w)
	if err := sw.Send(start); err != nil {
		return
	}
	deadlineC, ka, stop := streamTimers(deadline, keepalive)
	defer stop()
	for {
		select {
		case ev, open := <-events:
			if handle(sw, ev, open) {
				return
			}
			ka.Reset(keepalive)
		case <-ka.C:
			if err := sw.Send(keepaliveMsg); err != nil {
				return
			}
			ka.Reset(keepalive)
		case <-deadlineC:
			sw.End(connectrpc.Errorf("deadline_exceeded", "context deadline exceeded"))
			return
		case <-drop:
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		}
	}
}

// processStreamInput serves the client-streaming StreamInput RPC.
func (sb *Machine) processStreamInput(w http.ResponseWriter, r *http.Request) {
	var p *process
	fail := func(err error) {
		sw := connectrpc.NewStreamWriter(w)
		sw.End(err)
	}
	for {
		_, payload, err := connectrpc.ReadEnvelope(r.Body)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err)
			return
		}
		var msg struct {
			Start *struct {
				Process processSelectorJSON `json:"process"`
			} `json:"start"`
			Data *struct {
				Input processInputJSON `json:"input"`
			} `json:"data"`
		}
		if err := json.Unmarshal(payload, &msg); err != nil {
			fail(connectrpc.Errorf("invalid_argument", "unmarshal request: %v", err))
			return
		}
		switch {
		case msg.Start != nil:
			if p, err = sb.findProcess(msg.Start.Process); err != nil {
				fail(err)
				return
			}
		case msg.Data != nil:
			if p == nil {
				fail(connectrpc.Errorf("failed_precondition", "start message must come first"))
				return
			}
			if err := p.writeStdin(append(msg.Data.Input.Stdin, msg.Data.Input.Pty...)); err != nil {
				fail(err)
				return
			}
		}
	}
	sw := connectrpc.NewStreamWriter(w)
	_ = sw.Send(struct{}{})
	sw.End(nil)
}
