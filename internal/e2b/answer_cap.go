package e2b

import (
	"fmt"
	"io"
)

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
		return 0, errAnswerTooLarge{limit: max(c.limit, listEntryLimit)}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
