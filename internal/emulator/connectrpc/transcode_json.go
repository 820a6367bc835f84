package connectrpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The JSON side of a transcoded call: the request body the JSON handler
// reads, and the writers that take its answer.

// receivedJSON reads a client stream's messages as Connect JSON envelopes,
// receiving each when the JSON handler reads on (in its own goroutine, the
// handler's: a stream is not for concurrent use).
type receivedJSON struct {
	stream *connect.ClientStream[dynamicpb.Message]
	buf    []byte
	err    error
}

func (rj *receivedJSON) Read(p []byte) (int, error) {
	for len(rj.buf) == 0 {
		if rj.err != nil {
			return 0, rj.err
		}
		if !rj.stream.Receive() {
			rj.err = rj.stream.Err()
			if rj.err == nil {
				rj.err = io.EOF
			}
			continue
		}
		payload, err := toJSON(rj.stream.Msg())
		if err != nil {
			rj.err = err
			continue
		}
		rj.buf = envelope(payload)
	}
	n := copy(p, rj.buf)
	rj.buf = rj.buf[n:]
	return n, nil
}

// unaryRecorder keeps the JSON handler's unary answer.
type unaryRecorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (u *unaryRecorder) Header() http.Header { return u.header }

func (u *unaryRecorder) WriteHeader(status int) {
	if !u.wrote {
		u.status, u.wrote = status, true
	}
}

func (u *unaryRecorder) Write(p []byte) (int, error) {
	u.WriteHeader(http.StatusOK)
	return u.body.Write(p)
}

// streamRecorder reads the JSON handler's Connect stream as it is written:
// each message is sent on as a message of type out, the end-stream frame is
// kept as the call's result. A stream that is not a Connect stream (a unary
// error answer) is the call's error.
type streamRecorder struct {
	header http.Header
	status int
	out    protoreflect.MessageDescriptor
	send   func(*dynamicpb.Message) error
	buf    []byte
	ended  bool
	err    error // the end-stream frame's error, or the one that stopped the stream
}

func (s *streamRecorder) Header() http.Header { return s.header }

func (s *streamRecorder) WriteHeader(status int) {
	if s.status == 0 {
		s.status = status
	}
}

func (s *streamRecorder) Flush() {}

func (s *streamRecorder) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	if s.ended {
		return 0, errors.New("stream already ended")
	}
	s.buf = append(s.buf, p...)
	if s.status != http.StatusOK || !strings.HasPrefix(s.header.Get("Content-Type"), "application/connect+json") {
		return len(p), nil // an error answer, read whole by result
	}
	for len(s.buf) >= 5 {
		n := int(binary.BigEndian.Uint32(s.buf[1:5]))
		if len(s.buf) < 5+n {
			break
		}
		flags, payload := s.buf[0], s.buf[5:5+n]
		s.buf = s.buf[5+n:]
		if flags&FlagEndStream != 0 {
			s.ended = true
			s.err = endStreamError(payload)
			return len(p), nil
		}
		msg, err := fromJSON(payload, s.out)
		if err == nil {
			err = s.send(msg)
		}
		if err != nil {
			s.ended, s.err = true, err
			return 0, err
		}
	}
	return len(p), nil
}

func endStreamError(payload []byte) error {
	var end endStreamJSON
	if err := json.Unmarshal(payload, &end); err != nil {
		return connect.NewError(connect.CodeInternal, fmt.Errorf("end-stream frame: %w", err))
	}
	if end.Error == nil {
		return nil
	}
	data, _ := json.Marshal(end.Error)
	return jsonError(data)
}

// result is the call's outcome once the JSON handler returned: the end-stream
// frame's error; a unary-style error answer's; or, when the handler left
// without ending the stream, the context's (the caller left or the deadline
// passed).
func (s *streamRecorder) result(ctx context.Context) error {
	switch {
	case s.ended:
		return s.err
	case s.status != 0 && s.status != http.StatusOK:
		return jsonError(s.buf)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, ctx.Err())
	case ctx.Err() != nil:
		return connect.NewError(connect.CodeCanceled, ctx.Err())
	}
	return nil
}
