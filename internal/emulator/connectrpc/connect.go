package connectrpc

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

// The Connect protocol with the JSON codec: unary bodies, envelopes, errors.

const (
	FlagEndStream  = 0x02
	MaxMessageSize = 16 << 20
)

// httpStatus is connect-go's code to HTTP status table.
var httpStatus = map[string]int{
	"canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504,
	"not_found": 404, "already_exists": 409, "permission_denied": 403, "resource_exhausted": 429,
	"failed_precondition": 400, "aborted": 409, "out_of_range": 400, "unimplemented": 501,
	"internal": 500, "unavailable": 503, "data_loss": 500, "unauthenticated": 401,
}

type errorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// WriteError answers a unary RPC with a Connect error.
func WriteError(w http.ResponseWriter, err error) {
	var re *Error
	if !errors.As(err, &re) {
		re = &Error{Code: "internal", Msg: err.Error()}
	}
	status, ok := httpStatus[re.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorJSON{Code: re.Code, Message: re.Msg})
}

// ReadUnary decodes a unary Connect JSON request.
func ReadUnary(r *http.Request, v any) error {
	ct := r.Header.Get("Content-Type")
	if ct != "" && !strings.HasPrefix(ct, "application/json") {
		return Errorf("unimplemented", "content type %q is not supported, use application/json", ct)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageSize))
	if err != nil {
		return Errorf("invalid_argument", "read request: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return Errorf("invalid_argument", "unmarshal request: %v", err)
	}
	return nil
}

func WriteUnary(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// ReadEnvelope reads one Connect envelope; io.EOF when the stream ended.
func ReadEnvelope(r io.Reader) (flags byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, Errorf("invalid_argument", "truncated envelope")
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxMessageSize {
		return 0, nil, Errorf("resource_exhausted", "message size %d exceeds limit", n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, Errorf("invalid_argument", "truncated envelope")
	}
	if hdr[0]&0x01 != 0 {
		return 0, nil, Errorf("internal", "compressed messages are not supported")
	}
	return hdr[0], payload, nil
}

// ReadStreamRequest reads the single request envelope of a server-streaming RPC.
func ReadStreamRequest(r *http.Request, v any) error {
	_, payload, err := ReadEnvelope(r.Body)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Errorf("invalid_argument", "missing request message")
		}
		return err
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		payload = []byte("{}")
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return Errorf("invalid_argument", "unmarshal request: %v", err)
	}
	return nil
}

// StreamWriter writes Connect envelopes and flushes each one.
type StreamWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
	ended   bool
}

func NewStreamWriter(w http.ResponseWriter) *StreamWriter {
	w.Header().Set("Content-Type", "application/connect+json")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	sw := &StreamWriter{w: w, flusher: f}
	sw.Flush()
	return sw
}

func (sw *StreamWriter) Flush() {
	if sw.flusher != nil {
		sw.flusher.Flush()
	}
}

func (sw *StreamWriter) Write(flags byte, v any) error {
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
	sw.Flush()
	return nil
}

// Send writes one message envelope.
func (sw *StreamWriter) Send(v any) error { return sw.Write(0, v) }

type endStreamJSON struct {
	Error *errorJSON `json:"error,omitempty"`
}

// End writes the end-stream envelope, with err as the stream's error if set.
func (sw *StreamWriter) End(err error) {
	msg := endStreamJSON{}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: "internal", Msg: err.Error()}
		}
		msg.Error = &errorJSON{Code: re.Code, Message: re.Msg}
	}
	_ = sw.Write(FlagEndStream, msg)
	sw.mu.Lock()
	sw.ended = true
	sw.mu.Unlock()
}

// FlexUint32 accepts a JSON number or a string holding one (protojson allows both).
type FlexUint32 uint32

func (f *FlexUint32) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return fmt.Errorf("invalid uint32 %s", b)
	}
	*f = FlexUint32(n)
	return nil
}

// Error is a Connect error: a code such as "not_found" and a message.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Code + ": " + e.Msg }

// Errorf makes a Connect error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
