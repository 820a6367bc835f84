package emulator

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// withIdleTimeout bounds how long one read of the request body or one write
// of the answer may wait on the peer: a client that stops sending or stops
// reading is cut after Options.StreamIdleTimeout, while a slow transfer that
// keeps moving, or a stream that sends keepalives, is not.
func (s *Server) withIdleTimeout(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	d := peerDeadline{rc: http.NewResponseController(w), idle: s.opts.StreamIdleTimeout}
	if r.Body != nil && r.Body != http.NoBody {
		// A copy: the server must keep seeing its own body to decide what to
		// do with what the handler did not read.
		r = r.WithContext(r.Context())
		r.Body = &idleBody{ReadCloser: r.Body, peerDeadline: d}
	}
	return &idleWriter{ResponseWriter: w, peerDeadline: d}, r
}

// peerDeadline moves a read or write deadline to idle from now before each I/O with the peer.
type peerDeadline struct {
	rc   *http.ResponseController
	idle time.Duration
}

func (d peerDeadline) extendRead()  { _ = d.rc.SetReadDeadline(time.Now().Add(d.idle)) }
func (d peerDeadline) extendWrite() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.idle)) }

// idleBody sets a read deadline for each read and clears it at the end of
// the body: the server's own read that watches for a closed connection must
// not time out while a long answer streams. After a failed read the deadline
// stays, so the server gives up on the rest of the body too.
type idleBody struct {
	io.ReadCloser
	peerDeadline
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.extendRead()
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// idleWriter sets a write deadline before each write and flush.
type idleWriter struct {
	http.ResponseWriter
	peerDeadline
}

func (w *idleWriter) Write(p []byte) (int, error) {
	w.extendWrite()
	return w.ResponseWriter.Write(p)
}

func (w *idleWriter) Flush() { _ = w.FlushError() }

// FlushError lets http.ResponseController report a flush to a stuck peer.
func (w *idleWriter) FlushError() error {
	w.extendWrite()
	return w.rc.Flush()
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *idleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
