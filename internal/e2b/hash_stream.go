package e2b

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// HashStream returns the sha256 (hex) and length of r read to its end, a download or local
// content alike, without holding it in memory. Once ctx ends reads fail with ctx's error, so a
// cancelled run stops hashing.
func HashStream(ctx context.Context, r io.Reader) (sum string, n int64, err error) {
	return hashStreamBuffer(ctx, r, nil)
}

// hashStreamBuffer is HashStream copying through buf (nil: a fresh buffer), so hashing many
// files in a row reuses one.
func hashStreamBuffer(ctx context.Context, r io.Reader, buf []byte) (string, int64, error) {
	h := sha256.New()
	n, err := io.CopyBuffer(h, ctxReader{ctx: ctx, r: r}, buf)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// ctxReader fails reads once ctx has ended.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
