package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// fileContent is the one configured source of a file's bytes.
type fileContent struct {
	text     *string // content
	base64   *string // content_base64
	source   string  // local path
	unknown  bool    // some source is not known yet (plan time)
	attrName string  // which attribute gave it, for messages
}

func contentFrom(content, contentBase64, source types.String) fileContent {
	var c fileContent
	switch {
	case content.IsUnknown() || contentBase64.IsUnknown() || source.IsUnknown():
		c.unknown = true
	case !content.IsNull():
		s := content.ValueString()
		c.text, c.attrName = &s, "content"
	case !contentBase64.IsNull():
		s := contentBase64.ValueString()
		c.base64, c.attrName = &s, "content_base64"
	case !source.IsNull():
		c.source, c.attrName = source.ValueString(), "source"
	}
	return c
}

// open returns a reader over the bytes; a local file is streamed, never read whole, and must
// be a regular file (a device such as /dev/zero never ends).
func (c fileContent) open() (io.ReadCloser, error) {
	switch {
	case c.text != nil:
		return io.NopCloser(strings.NewReader(*c.text)), nil
	case c.base64 != nil:
		b, err := base64.StdEncoding.DecodeString(*c.base64)
		if err != nil {
			return nil, fmt.Errorf("content_base64 is not valid base64: %w", err)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	case c.source != "":
		f, err := os.Open(c.source)
		if err != nil {
			return nil, fmt.Errorf("cannot open source file: %w", err)
		}
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			_ = f.Close()
			return nil, fmt.Errorf("source %s is not a regular file", c.source)
		}
		return f, nil
	}
	return nil, fmt.Errorf("no content, content_base64 or source is set")
}

// knownSum is the sha256 of the content if it can be known before it is sent: planned, or
// computed from content or content_base64 (held in memory anyway). A source file whose hash was
// not planned gives "" rather than being read twice.
func (c fileContent) knownSum(planned types.String) (string, error) {
	if !planned.IsUnknown() && !planned.IsNull() {
		return planned.ValueString(), nil
	}
	if c.source != "" {
		return "", nil
	}
	sum, _, err := c.digest(context.Background())
	return sum, err
}

// digest hashes the content without holding it in memory; it stops when ctx ends.
func (c fileContent) digest(ctx context.Context) (sum string, size int64, err error) {
	r, err := c.open()
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = r.Close() }()
	sum, size, err = e2b.HashStream(ctx, r)
	if err != nil {
		return "", 0, fmt.Errorf("cannot read %s: %w", c.attrName, err)
	}
	return sum, size, nil
}

// hashingReader hashes and counts what passes through it.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func newHashingReader(r io.Reader) *hashingReader { return &hashingReader{r: r, h: sha256.New()} }

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

func (hr *hashingReader) sum() string { return hex.EncodeToString(hr.h.Sum(nil)) }

// sourceFileValidator checks, at plan time, that source names a local regular file (after
// symlinks): a directory, device, pipe or socket cannot be uploaded.
func sourceFileValidator() validator.String {
	return validators.StringRule{Desc: "must be a local regular file", Summary: "Source file not usable", Check: checkSourceFile}
}

func checkSourceFile(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		hint := ""
		if !filepath.IsAbs(p) {
			if wd, wdErr := os.Getwd(); wdErr == nil {
				hint = fmt.Sprintf(" (relative paths start in %s, the directory Terraform runs in; "+
					"use \"${path.module}/...\" for files next to the configuration)", wd)
			}
		}
		if os.IsNotExist(err) {
			return "must name an existing local file, but the local file " + p + " does not exist" + hint
		}
		return "must name a readable local file" + hint + " (" + err.Error() + ")"
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "must be a regular file, but " + p + " is a directory"
	default:
		return "must be a regular file, but " + p + " is a " + fileKind(m) + " (only regular files can be uploaded)"
	}
}

// fileKind names what a non-regular file is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// seeLocalFile is what a refresh records of a file source while its content differs from what
// E2B holds (stateSHA256); nil when they agree, there is no source, or it cannot be read.
func seeLocalFile(ctx context.Context, source, stateSHA256 types.String) *base.LocalSeen {
	if source.IsNull() || source.IsUnknown() {
		return nil
	}
	sum, _, err := fileContent{source: source.ValueString(), attrName: "source"}.digest(ctx)
	if err != nil || sum == stateSHA256.ValueString() {
		return nil
	}
	return &base.LocalSeen{Source: source.ValueString(), Files: map[string]string{"": sum}}
}

// planFileSum decides the planned sha256 and size of a file resource from its content c
// (hashed as sum and size): known, or, for a local source that no refresh has seen in this run
// (a create or a replacement), known after apply. It fails when the source changed since the
// refresh of this run (see localSeen).
func planFileSum(ctx context.Context, c fileContent, sum string, size int64, creating bool, private base.PrivateState) (types.String, types.Int64, diag.Diagnostics) {
	var diags diag.Diagnostics
	if c.source == "" {
		return types.StringValue(sum), types.Int64Value(size), diags
	}
	if creating {
		return types.StringUnknown(), types.Int64Unknown(), diags
	}
	if len(base.ChangedSinceSeen(base.GetLocalSeen(ctx, private), c.source, nil, nil, map[string]string{"": sum})) > 0 {
		diags.Append(base.ChangedSincePlanDiagnostic(path.Root("source"), c.source, nil))
	}
	return types.StringValue(sum), types.Int64Value(size), diags
}
