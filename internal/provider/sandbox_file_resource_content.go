package provider

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
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

// open returns a reader over the bytes; a local file is streamed, never read whole.
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
		return f, nil
	}
	return nil, fmt.Errorf("no content, content_base64 or source is set")
}

// digest hashes the content without holding it in memory.
func (c fileContent) digest() (sum string, size int64, err error) {
	r, err := c.open()
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = r.Close() }()
	sum, size, err = hashStream(r)
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

// hashStream hashes a stream (a download or local content).
func hashStream(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// checkSourceFile explains a missing or unusable local source file.
func checkSourceFile(p string) error {
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
			return fmt.Errorf("the local file %s does not exist%s", p, hint)
		}
		return fmt.Errorf("cannot read the local file %s%s: %w", p, hint, err)
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory; source must be a regular file", p)
	}
	return nil
}
