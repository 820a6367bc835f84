package e2b

import (
	"fmt"
	"io"
	"net/http"
)

// Caps of answers decoded whole (envd's unary answers: unaryAnswerLimit; a listing is decoded
// entry by entry: listEntryLimit).
const (
	// controlAnswerLimit bounds an answer of E2B's API: a page of a list is the largest, far below.
	controlAnswerLimit = 32 << 20
	// uploadAnswerLimit bounds envd's answer to an upload: one short entry per file sent.
	uploadAnswerLimit = 16 << 20
)

// identityEncoding asks for answers as they are, unless the request already names an encoding
// (ReadFile's gzip, decoded as a stream): net/http decodes a gzip answer transparently, and
// whole, when it added Accept-Encoding itself, so a small gzip answer of a lying envd could
// inflate to gigabytes before any cap saw it.
type identityEncoding struct{ next http.RoundTripper }

func (t identityEncoding) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Accept-Encoding", "identity")
	}
	return t.next.RoundTrip(r)
}

// errAnswerTooLarge is the error of an answer past its cap.
type errAnswerTooLarge struct{ limit int64 }

func (e errAnswerTooLarge) Error() string {
	return fmt.Sprintf("the answer exceeds %d bytes, far more than it can hold; it was not read further", e.limit)
}

// capReader reads r up to limit bytes and fails (instead of ending cleanly) past them, so an
// answer that is too large is an error, never a truncated value taken for whole.
func capReader(r io.Reader, limit int64) io.Reader {
	return &resettableCap{r: r, left: limit, limit: limit}
}

// resettableCap fails a read past left bytes; a decoder of a stream of values resets left
// before each value so that each value, not the stream, is bounded.
type resettableCap struct {
	r           io.Reader
	left, limit int64
}

func (c *resettableCap) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errAnswerTooLarge{limit: c.limit}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
