package envd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// pipeReader copies one output pipe into events and remembers whether it is
// blocked waiting for data, so a pipe held open by a background child
// cannot delay the end event forever.
type pipeReader struct {
	f         *os.File
	kind      eventKind
	waitingAt atomic.Int64 // unix nanos when a read started, 0 while not reading
	done      chan struct{}
}

func (pr *pipeReader) loop(p *process) {
	defer close(pr.done)
	buf := make([]byte, outputChunkSize)
	for {
		pr.waitingAt.Store(time.Now().UnixNano())
		n, err := pr.f.Read(buf)
		pr.waitingAt.Store(0)
		if n > 0 {
			data := make([]byte, n)
			copy(data, buf[:n])
			p.publish(procEvent{kind: pr.kind, data: data})
		}
		if err != nil {
			return
		}
	}
}

func (pr *pipeReader) idleFor() time.Duration {
	at := pr.waitingAt.Load()
	if at == 0 {
		return 0
	}
	return time.Since(time.Unix(0, at))
}

func (p *process) run(pt *processTable, outR, errR *os.File) {
	readers := []*pipeReader{{f: outR, kind: evStdout, done: make(chan struct{})}}
	if errR != nil {
		readers = append(readers, &pipeReader{f: errR, kind: evStderr, done: make(chan struct{})})
	}
	for _, r := range readers {
		go r.loop(p)
	}
	waitErr := p.cmd.Wait()
	for _, r := range readers {
		for waiting := true; waiting; {
			select {
			case <-r.done:
				waiting = false
			case <-time.After(20 * time.Millisecond):
				if r.idleFor() > pipeIdleAfterEnd {
					_ = r.f.Close() // unblocks the read
				}
			}
		}
		_ = r.f.Close()
	}
	p.closeStdin()
	pt.pruneMembers()
	end := endFromState(p.cmd.ProcessState, waitErr)
	pt.sb.AddLog("info", "Process exited", map[string]string{"logger": processLogger, "pid": fmt.Sprint(p.pid), "status": end.Status})
	p.stopDeadline()
	p.mu.Lock()
	p.end = &end
	p.exitedAt = time.Now()
	subs := p.subscribersLocked()
	p.mu.Unlock()
	deliver(subs, procEvent{kind: evEnd, end: end})
	close(p.done)
}

func endFromState(ps *os.ProcessState, waitErr error) endInfo {
	if ps == nil {
		msg := "process state unknown"
		if waitErr != nil {
			msg = waitErr.Error()
		}
		return endInfo{ExitCode: -1, Status: msg, Error: msg}
	}
	e := endInfo{ExitCode: int32(ps.ExitCode()), Exited: ps.Exited(), Status: ps.String()}
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) || !ps.Success() {
		e.Error = ps.String()
	}
	return e
}

func (p *process) publish(ev procEvent) {
	p.mu.Lock()
	subs := p.subscribersLocked()
	p.mu.Unlock()
	deliver(subs, ev)
}

// subscribersLocked copies the subscriber set (p.mu is held), so events are
// handed over without the lock.
func (p *process) subscribersLocked() []*subscriber {
	subs := make([]*subscriber, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	return subs
}

// deliver hands ev to each subscriber that still listens.
func deliver(subs []*subscriber, ev procEvent) {
	for _, s := range subs {
		select {
		case s.ch <- ev:
		case <-s.done:
		}
	}
}
