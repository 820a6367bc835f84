package e2b

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Connect protocol with the JSON codec, written by hand: unary calls are a
// JSON POST; server streams are envelopes (flag byte + 4-byte big-endian
// length + payload) ending with an end-stream envelope (flag 0x02).
const (
	connectProtocolVersion = "1"
	contentTypeUnary       = "application/json"
	contentTypeStream      = "application/connect+json"
	flagCompressed         = 0x01
	flagEndStream          = 0x02
	// keepalivePingSeconds asks envd for a keepalive when output is idle.
	keepalivePingSeconds = "50"
	// maxEnvelope bounds one message; envd sends small chunks.
	maxEnvelope = 32 << 20
)

// connectWireError is the JSON of a Connect error (unary body or end-stream).
type connectWireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// encodeEnvelope frames one message.
func encodeEnvelope(flags byte, payload []byte) []byte {
	out := make([]byte, 5+len(payload))
	out[0] = flags
	binary.BigEndian.PutUint32(out[1:5], uint32(len(payload)))
	copy(out[5:], payload)
	return out
}

// envelopeReader reads envelopes one at a time. The returned payload is
// only valid until the next call: its buffer is reused.
type envelopeReader struct {
	r   *bufio.Reader
	buf []byte
}

// maxRetainedBuffer is the largest payload buffer kept between envelopes.
const maxRetainedBuffer = 1 << 20

func newEnvelopeReader(r io.Reader) *envelopeReader {
	return &envelopeReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next envelope. io.EOF means the stream ended cleanly
// between envelopes (without end-stream); io.ErrUnexpectedEOF a cut frame.
func (er *envelopeReader) next() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(er.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxEnvelope {
		return 0, nil, fmt.Errorf("connect envelope of %d bytes exceeds the %d byte limit", n, maxEnvelope)
	}
	if cap(er.buf) < int(n) || cap(er.buf) > maxRetainedBuffer {
		er.buf = make([]byte, n)
	}
	payload := er.buf[:n]
	if _, err := io.ReadFull(er.r, payload); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return hdr[0], payload, nil
}

// endStreamError parses an end-stream payload; nil means success.
func endStreamError(op, sandboxID string, payload []byte) error {
	var end struct {
		Error *connectWireError `json:"error"`
	}
	if len(payload) > 0 {
		if err := json.Unmarshal(payload, &end); err != nil {
			return fmt.Errorf("%s: malformed end-stream message: %w", opName(op, sandboxID), err)
		}
	}
	if end.Error == nil {
		return nil
	}
	return connectError(op, sandboxID, end.Error.Code, end.Error.Message)
}

func connectTimeoutHeader(h http.Header, d time.Duration) {
	if d > 0 {
		ms := max(d.Milliseconds(), 1)
		h.Set("Connect-Timeout-Ms", strconv.FormatInt(ms, 10))
	}
}

func deadlineTimeout(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl), time.Millisecond)
	}
	return 0
}

// unaryAnswerLimit bounds a unary answer: envd's answers to Stat, MakeDir, Move and
// the like are one entry, far below it. ListDir's answer, which grows with the
// folder, is decoded entry by entry instead (ListDirEach).
const unaryAnswerLimit = 1 << 20

// unary calls procedure ("filesystem.Filesystem/Stat") with in as JSON and
// decodes the answer into out; an answer past unaryAnswerLimit is an error.
func (e *Envd) unary(ctx context.Context, op, procedure string, class retryClass, in, out any) error {
	body, err := e.unaryAnswer(ctx, op, procedure, class, in)
	if err != nil {
		return err
	}
	defer drainClose(body)
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(capReader(body, unaryAnswerLimit)).Decode(out); err != nil {
		return &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("decode response: %w", err)}
	}
	return nil
}

// unaryAnswer calls procedure with in as JSON and returns the body of a 200 answer,
// for the caller to close.
func (e *Envd) unaryAnswer(ctx context.Context, op, procedure string, class retryClass, in any) (io.ReadCloser, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", op, err)
	}
	ci := e.call(op, class, timeoutWhole)
	req, err := retryablehttp.NewRequestWithContext(withCall(ctx, ci), http.MethodPost, e.base+"/"+procedure, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	e.setHeaders(req.Header, true)
	req.Header.Set("Content-Type", contentTypeUnary)
	req.Header.Set("Connect-Protocol-Version", connectProtocolVersion)
	connectTimeoutHeader(req.Header, deadlineTimeout(ctx))
	resp, err := e.send(ctx, op, req)
	if err != nil {
		return nil, err
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		_ = resp.Body.Close()
		return nil, &transportError{op: op, sandboxID: e.t.SandboxID,
			err: fmt.Errorf("the answer is encoded as %q, which was not asked for; it was not decoded", ce)}
	}
	return resp.Body, nil
}

// send sends a Connect call and returns its 200 answer; any other answer
// becomes the RPC error it carries, its body drained and closed.
func (e *Envd) send(ctx context.Context, op string, req *retryablehttp.Request) (*http.Response, error) {
	resp, err := e.c.envd.Do(req)
	if err != nil {
		return nil, requestError(ctx, op, e.t.SandboxID, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer drainClose(resp.Body)
		return nil, rpcErrorFromResponse(op, e.t.SandboxID, resp)
	}
	return resp, nil
}

// openStream starts a server-streaming call and returns the live response.
// timeout becomes Connect-Timeout-Ms (0 = none). Only the wait for headers
// is bounded by Config.RequestTimeout.
func (e *Envd) openStream(ctx context.Context, op, procedure string, class retryClass, in any, timeout time.Duration) (*http.Response, error) {
	msg, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", op, err)
	}
	ci := e.call(op, class, timeoutHeaders)
	req, err := retryablehttp.NewRequestWithContext(withCall(ctx, ci), http.MethodPost, e.base+"/"+procedure, encodeEnvelope(0, msg))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	e.setHeaders(req.Header, true)
	req.Header.Set("Content-Type", contentTypeStream)
	req.Header.Set("Connect-Protocol-Version", connectProtocolVersion)
	req.Header.Set("Keepalive-Ping-Interval", keepalivePingSeconds)
	connectTimeoutHeader(req.Header, timeout)
	resp, err := e.send(ctx, op, req)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != contentTypeStream {
		// Close without draining: the body may be a live stream that no
		// longer has a per-attempt deadline.
		_ = resp.Body.Close()
		return nil, &APIError{Op: op, SandboxID: e.t.SandboxID, StatusCode: resp.StatusCode, URL: requestURL(resp),
			side: sideEnvd, foreign: true,
			Message: fmt.Sprintf("unexpected content type %q for a Connect stream", resp.Header.Get("Content-Type"))}
	}
	return resp, nil
}
