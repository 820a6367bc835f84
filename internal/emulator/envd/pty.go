package envd

import (
	"encoding/json"
	"os"
	"os/exec"

	"github.com/creack/pty"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/connectrpc"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// ptyJSON is process.PTY: the terminal size of a Start or Update.
type ptyJSON struct {
	Size struct {
		Cols connectrpc.FlexUint32 `json:"cols"`
		Rows connectrpc.FlexUint32 `json:"rows"`
	} `json:"size"`
}

// parsePty reads the pty field of a request; nil when there is none.
func parsePty(raw json.RawMessage) (*ptyJSON, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p ptyJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, connectrpc.Errorf("invalid_argument", "invalid pty: %v", err)
	}
	return &p, nil
}

func (p *ptyJSON) winsize() *pty.Winsize {
	return &pty.Winsize{Cols: uint16(p.Size.Cols), Rows: uint16(p.Size.Rows)}
}

// processIO is the emulator's side of a command's standard streams.
type processIO struct {
	out, errOut *os.File   // read: stdout (or the terminal), stderr (nil with a terminal)
	in          *os.File   // write: stdin (or the terminal); nil without stdin
	tty         *os.File   // the terminal's controlling side, for resizing; nil without one
	childEnds   []*os.File // the command's ends, closed once it has started
}

func (pio processIO) closeAll() {
	closeAll(pio.out, pio.errOut, pio.in)
	closeAll(pio.childEnds...)
}

// attachTerminal gives cmd a real pseudo-terminal of the requested size as
// stdin, stdout and stderr, in a new session where it is the controlling
// terminal, as envd does: the command sees a terminal, and a resize reaches
// it as SIGWINCH.
func attachTerminal(cmd *exec.Cmd, term *ptyJSON) (processIO, error) {
	ptm, tty, err := pty.Open()
	if err != nil {
		return processIO{}, connectrpc.Errorf("internal", "error opening pty: %v", err)
	}
	if err := pty.Setsize(ptm, term.winsize()); err != nil {
		closeAll(ptm, tty)
		return processIO{}, connectrpc.Errorf("invalid_argument", "error setting pty size to %d cols and %d rows: %v", term.Size.Cols, term.Size.Rows, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = sandboxos.AsTerminalSession(cmd.SysProcAttr)
	return processIO{out: ptm, in: ptm, tty: ptm, childEnds: []*os.File{tty}}, nil
}

// attachPipes connects cmd's standard streams to pipes; stdin only when
// asked for (else the command reads /dev/null).
func attachPipes(cmd *exec.Cmd, withStdin bool) (processIO, error) {
	var pio processIO
	outR, outW, err := os.Pipe()
	if err != nil {
		return pio, err
	}
	pio.out, pio.childEnds = outR, append(pio.childEnds, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		pio.closeAll()
		return processIO{}, err
	}
	pio.errOut, pio.childEnds = errR, append(pio.childEnds, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	if withStdin {
		inR, inW, err := os.Pipe()
		if err != nil {
			pio.closeAll()
			return processIO{}, err
		}
		pio.in, pio.childEnds = inW, append(pio.childEnds, inR)
		cmd.Stdin = inR
	}
	return pio, nil
}

// resize sets the terminal size of a pty process.
func (p *process) resize(term *ptyJSON) error {
	if p.tty == nil {
		return connectrpc.Errorf("failed_precondition", "tty not assigned to process %d", p.pid)
	}
	if err := pty.Setsize(p.tty, term.winsize()); err != nil {
		return connectrpc.Errorf("internal", "error resizing tty of process %d: %v", p.pid, err)
	}
	return nil
}
