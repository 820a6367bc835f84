package e2b

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	pathpkg "path"
)

// WriteOptions tunes WriteFile.
type WriteOptions struct {
	Gzip bool // compress the body on the fly (Content-Encoding: gzip)
	// Metadata replaces the file's metadata (envd 0.6.2+ keeps it as extended attributes and
	// Stat returns it; older envd ignores it). Keys are lower-case printable ASCII.
	Metadata map[string]string
}

// WriteInfo is envd's answer to an upload.
type WriteInfo struct {
	Path, Name, Type string
	// Metadata is what envd kept of WriteOptions.Metadata: nil when it keeps none (older envd,
	// or a file system without extended attributes).
	Metadata map[string]string
}

// ReadOptions tunes ReadFile.
type ReadOptions struct {
	Gzip bool // ask for a gzip-encoded body; it is decoded transparently
}

func (e *Envd) filesURL(path string) string {
	q := url.Values{"path": {path}}
	if e.t.User != "" {
		q.Set("username", e.t.User)
	}
	return e.base + "/files?" + q.Encode()
}

// WriteFile uploads r to path as application/octet-stream, streaming it:
// the content is never held in memory as a whole. The body cannot be
// replayed, so the upload is never retried.
func (e *Envd) WriteFile(ctx context.Context, path string, r io.Reader, o WriteOptions) (*WriteInfo, error) {
	const op = "write file"
	body := r
	var pr *io.PipeReader
	compressed := make(chan struct{})
	if !o.Gzip {
		close(compressed)
	} else {
		var pw *io.PipeWriter
		pr, pw = io.Pipe()
		go func() {
			defer close(compressed)
			zw := gzip.NewWriter(pw)
			_, err := io.Copy(zw, r)
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
			_ = pw.CloseWithError(err)
		}()
		body = pr
	}
	infos, err := e.postFiles(ctx, op, e.filesURL(path), path, body, func(h http.Header) {
		h.Set("Content-Type", "application/octet-stream")
		if o.Gzip {
			h.Set("Content-Encoding", "gzip")
		}
		for k, v := range o.Metadata {
			h.Set("X-Metadata-"+k, v)
		}
	}, func() {
		if pr != nil {
			// Unblock the compressor if the transport stopped reading early.
			_ = pr.CloseWithError(errors.New("upload finished"))
		}
		// Never return while the compressor may still read r.
		<-compressed
	})
	if err != nil {
		return nil, err
	}
	return &WriteInfo{Path: infos[0].Path, Name: infos[0].Name, Type: infos[0].Type, Metadata: infos[0].Metadata}, nil
}

// uploadedEntry is one entry of envd's answer to an upload.
type uploadedEntry struct {
	Path     string            `json:"path"`
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Metadata map[string]string `json:"metadata"`
}

// postFiles sends body to envd's upload endpoint at url and decodes its answer, which has at
// least one entry. label names what is sent in errors. done runs as soon as the transport has
// finished with body, before the answer is read.
func (e *Envd) postFiles(ctx context.Context, op, url, label string, body io.Reader, headers func(http.Header), done func()) ([]uploadedEntry, error) {
	ci := e.call(op, retryNever, timeoutNone)
	req, err := http.NewRequestWithContext(withCall(ctx, ci), http.MethodPost, url, body)
	if err != nil {
		done()
		return nil, fmt.Errorf("%s %q: %w", op, label, err)
	}
	e.setHeaders(req.Header, false)
	headers(req.Header)
	// The plain client: retryablehttp would read the whole body into memory.
	resp, err := e.c.envd.HTTPClient.Do(req)
	done()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %q in sandbox %q: %w", op, label, e.t.SandboxID, ctx.Err())
		}
		return nil, &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("%s: %w", label, redactURLError(err))}
	}
	defer drainClose(resp.Body)
	if resp.StatusCode != http.StatusOK {
		ae := envdError(op, e.t.SandboxID, pathpkg.Base(label), resp)
		ae.Message = withPath(label, ae.Message)
		return nil, ae
	}
	var infos []uploadedEntry
	if err := json.NewDecoder(capReader(resp.Body, uploadAnswerLimit)).Decode(&infos); err != nil {
		return nil, &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("decode answer for %s: %w", label, err)}
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("%s %q in sandbox %q: envd answered with no entry", op, label, e.t.SandboxID)
	}
	return infos, nil
}

func withPath(path, msg string) string {
	if msg == "" {
		return "path " + path
	}
	return msg
}

// ReadFile downloads path as a stream; the caller must Close it. A missing
// file gives IsNotFound. Retried (idempotent) until the body starts.
func (e *Envd) ReadFile(ctx context.Context, path string, o ReadOptions) (io.ReadCloser, error) {
	const op = "read file"
	req, err := newGet(withCall(ctx, e.call(op, retryIdempotent, timeoutHeaders)), e.filesURL(path))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", op, path, err)
	}
	e.setHeaders(req.Header, false)
	if o.Gzip {
		// Setting it ourselves turns off net/http's transparent decoding;
		// we decode below.
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := e.c.envd.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %q in sandbox %q: %w", op, path, e.t.SandboxID, ctx.Err())
		}
		return nil, &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("%s: %w", path, redactURLError(err))}
	}
	if resp.StatusCode != http.StatusOK {
		defer drainClose(resp.Body)
		ae := envdError(op, e.t.SandboxID, pathpkg.Base(path), resp)
		ae.Message = withPath(path, ae.Message)
		return nil, ae
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return resp.Body, nil
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		if errors.Is(err, io.EOF) { // empty body: empty file
			return resp.Body, nil
		}
		drainClose(resp.Body)
		return nil, fmt.Errorf("%s %q in sandbox %q: bad gzip body: %w", op, path, e.t.SandboxID, err)
	}
	return &gzipBody{zr: zr, body: resp.Body}, nil
}

type gzipBody struct {
	zr   *gzip.Reader
	body io.ReadCloser
}

func (g *gzipBody) Read(p []byte) (int, error) { return g.zr.Read(p) }

func (g *gzipBody) Close() error {
	zerr := g.zr.Close()
	if err := g.body.Close(); err != nil {
		return err
	}
	return zerr
}
