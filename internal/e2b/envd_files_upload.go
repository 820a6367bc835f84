package e2b

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
)

// UploadFile is one file of a WriteFiles call.
type UploadFile struct {
	Path string // where it goes: an absolute path in the sandbox
	Size int64  // expected size; it only decides how files are grouped into requests
	// Open opens the content; it is called once per attempt and what it returns is closed.
	Open func() (io.ReadCloser, error)
}

// WrittenFile is what WriteFiles sent for one file.
type WrittenFile struct {
	Path   string // as envd resolved it
	Size   int64
	SHA256 string // of the bytes sent
}

// Limits of one multipart upload: a failed request is sent again whole, so a batch stays
// small enough to resend, and large enough that small files do not cost a request each.
const (
	uploadBatchFiles = 512
	uploadBatchBytes = 32 << 20
)

// WriteFiles uploads files with envd's multipart upload of several files: one part named
// "file" per file, its path as the part's file name, as the SDKs' files.write of a list sends
// them. Files go in batches of up to uploadBatchFiles files or uploadBatchBytes bytes per
// request, each file read from Open while its request goes out and hashed on the way, so
// memory does not grow with the files. A batch whose request failed in a way WriteFileFrom
// retries is sent again from the start (rewriting a file has the effect of writing it once).
// It returns what was written, in order, also when a later batch failed.
func (e *Envd) WriteFiles(ctx context.Context, files []UploadFile) ([]WrittenFile, error) {
	var written []WrittenFile
	for start := 0; start < len(files); {
		end, size := start, int64(0)
		for end < len(files) && end-start < uploadBatchFiles && (end == start || size+files[end].Size <= uploadBatchBytes) {
			size += files[end].Size
			end++
		}
		out, err := e.writeBatch(ctx, files[start:end])
		if err != nil {
			return written, err
		}
		written = append(written, out...)
		start = end
	}
	return written, nil
}

func (e *Envd) writeBatch(ctx context.Context, batch []UploadFile) ([]WrittenFile, error) {
	for attempt := 0; ; attempt++ {
		out, err := e.sendBatch(ctx, batch)
		var local *localReadError
		if err == nil || errors.As(err, &local) || !uploadRetryable(err) || attempt >= e.c.retryMax || ctx.Err() != nil {
			return out, err
		}
		if err := sleepCtx(ctx, backoff(e.c.cfg.RetryWaitMin, e.c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, err
		}
	}
}

// localReadError is a failure to read a file being sent: the upload is not retried for it.
type localReadError struct {
	path string
	err  error
}

func (e *localReadError) Error() string {
	return fmt.Sprintf("read the file for %s: %v", e.path, e.err)
}
func (e *localReadError) Unwrap() error { return e.err }

// errReader remembers the error its reader returned, to tell a local read failure from the
// request's own.
type errReader struct {
	r   io.Reader
	err error
}

func (r *errReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// sendBatch sends one multipart request, written through a pipe while it goes out.
func (e *Envd) sendBatch(ctx context.Context, batch []UploadFile) ([]WrittenFile, error) {
	const op = "write files"
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	out := make([]WrittenFile, len(batch))
	var local error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_ = pw.CloseWithError(e.writeParts(mw, batch, out, &local))
	}()
	q := url.Values{}
	if e.t.User != "" {
		q.Set("username", e.t.User)
	}
	target := e.base + "/files"
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	label := batch[0].Path
	if len(batch) > 1 {
		label = fmt.Sprintf("%s and %d other files", batch[0].Path, len(batch)-1)
	}
	infos, err := e.postFiles(ctx, op, target, label, pr, func(h http.Header) {
		h.Set("Content-Type", mw.FormDataContentType())
	}, func() {
		_ = pr.CloseWithError(errors.New("upload finished"))
		<-finished
	})
	if local != nil {
		return nil, local
	}
	if err != nil {
		return nil, err
	}
	if len(infos) != len(batch) {
		return nil, fmt.Errorf("%s in sandbox %q: envd answered with %d entries for %d files", op, e.t.SandboxID, len(infos), len(batch))
	}
	for i := range out {
		out[i].Path = infos[i].Path
	}
	return out, nil
}

// writeParts writes batch as the parts of mw, filling out with sizes and hashes; a file that
// cannot be read sets *local.
func (e *Envd) writeParts(mw *multipart.Writer, batch []UploadFile, out []WrittenFile, local *error) error {
	for i, f := range batch {
		part, err := mw.CreateFormFile("file", f.Path)
		if err != nil {
			return err
		}
		r, err := f.Open()
		if err != nil {
			*local = &localReadError{path: f.Path, err: err}
			return *local
		}
		h := sha256.New()
		src := &errReader{r: r}
		n, err := io.Copy(io.MultiWriter(part, h), src)
		_ = r.Close()
		if src.err != nil {
			*local = &localReadError{path: f.Path, err: src.err}
			return *local
		}
		if err != nil {
			return err
		}
		out[i] = WrittenFile{Path: f.Path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	}
	return mw.Close()
}
