package emulator

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Connect protocol (JSON codec) helpers: unary bodies, envelopes and errors.

const (
	flagEndStream  = 0x02
	maxMessageSize = 16 << 20
)

// connectHTTPStatus is connect-go's code to HTTP status table.
var connectHTTPStatus = map[string]int{
	"canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504,
	"not_found": 404, "already_exists": 409, "permission_denied": 403, "resource_exhausted": 429,
	"failed_precondition": 400, "aborted": 409, "out_of_range": 400, "unimplemented": 501,
	"internal": 500, "unavailable": 503, "data_loss": 500, "unauthenticated": 401,
}

type connectErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// writeConnectError answers a unary RPC with a Connect error.
func writeConnectError(w http.ResponseWriter, err error) {
	var re *rpcError
	if !errors.As(err, &re) {
		re = &rpcError{code: "internal", msg: err.Error()}
	}
	status, ok := connectHTTPStatus[re.code]
	if !ok {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(connectErrorJSON{Code: re.code, Message: re.msg})
}

// readUnary decodes a unary Connect JSON request.
func readUnary(r *http.Request, v any) error {
	ct := r.Header.Get("Content-Type")
	if ct != "" && !strings.HasPrefix(ct, "application/json") {
		return newRPCError("unimplemented", "content type %q is not supported, use application/json", ct)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxMessageSize))
	if err != nil {
		return newRPCError("invalid_argument", "read request: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return newRPCError("invalid_argument", "unmarshal request: %v", err)
	}
	return nil
}

func writeUnary(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// readEnvelope reads one Connect envelope; io.EOF when the stream ended.
func readEnvelope(r io.Reader) (flags byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, newRPCError("invalid_argument", "truncated envelope")
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxMessageSize {
		return 0, nil, newRPCError("resource_exhausted", "message size %d exceeds limit", n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, newRPCError("invalid_argument", "truncated envelope")
	}
	if hdr[0]&0x01 != 0 {
		return 0, nil, newRPCError("internal", "compressed messages are not supported")
	}
	return hdr[0], payload, nil
}

// readStreamRequest reads the single request envelope of a server-streaming RPC.
func readStreamRequest(r *http.Request, v any) error {
	_, payload, err := readEnvelope(r.Body)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return newRPCError("invalid_argument", "missing request message")
		}
		return err
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		payload = []byte("{}")
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return newRPCError("invalid_argument", "unmarshal request: %v", err)
	}
	return nil
}

// streamWriter writes Connect envelopes and flushes each one.
type streamWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
	ended   bool
}

func newStreamWriter(w http.ResponseWriter) *streamWriter {
	w.Header().Set("Content-Type", "application/connect+json")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	sw := &streamWriter{w: w, flusher: f}
	sw.flush()
	return sw
}

func (sw *streamWriter) flush() {
	if sw.flusher != nil {
		sw.flusher.Flush()
	}
}

func (sw *streamWriter) write(flags byte, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.ended {
		return errors.New("stream already ended")
	}
	var hdr [5]byte
	hdr[0] = flags
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	if _, err := sw.w.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := sw.w.Write(payload); err != nil {
		return err
	}
	sw.flush()
	return nil
}

// send writes one message envelope.
func (sw *streamWriter) send(v any) error { return sw.write(0, v) }

type endStreamJSON struct {
	Error *connectErrorJSON `json:"error,omitempty"`
}

// end writes the end-stream envelope, with err as the stream's error if set.
func (sw *streamWriter) end(err error) {
	msg := endStreamJSON{}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{code: "internal", msg: err.Error()}
		}
		msg.Error = &connectErrorJSON{Code: re.code, Message: re.msg}
	}
	_ = sw.write(flagEndStream, msg)
	sw.mu.Lock()
	sw.ended = true
	sw.mu.Unlock()
}

// flexUint32 accepts a JSON number or a string holding one (protojson allows both).
type flexUint32 uint32

func (f *flexUint32) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return fmt.Errorf("invalid uint32 %s", b)
	}
	*f = flexUint32(n)
	return nil
}
