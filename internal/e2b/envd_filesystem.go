package e2b

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// EntryInfo describes a file, directory or symlink.
type EntryInfo struct {
	Name, Type, Path, Permissions, Owner, Group, SymlinkTarget string
	// Type is FileTypeFile, FileTypeDir, FileTypeSymlink or "" (unknown). envd reports a
	// symlink with its target's type and sets SymlinkTarget.
	Size         int64
	Mode         uint32
	ModifiedTime time.Time
	// Metadata is the file's upload metadata (see WriteOptions.Metadata); nil when it has none.
	Metadata map[string]string
}

// protoInt64 accepts proto-JSON int64 values, which are strings ("1024"),
// as well as plain numbers.
type protoInt64 int64

func (p *protoInt64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = str
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("invalid int64 %s: %w", b, err)
	}
	*p = protoInt64(n)
	return nil
}

type wireEntry struct {
	Name          string            `json:"name"`
	Type          string            `json:"type"`
	Path          string            `json:"path"`
	Size          protoInt64        `json:"size"`
	Mode          uint32            `json:"mode"`
	Permissions   string            `json:"permissions"`
	Owner         string            `json:"owner"`
	Group         string            `json:"group"`
	ModifiedTime  *time.Time        `json:"modifiedTime"`
	SymlinkTarget *string           `json:"symlinkTarget"`
	Metadata      map[string]string `json:"metadata"`
}

func (w *wireEntry) toEntry() *EntryInfo {
	if w == nil {
		return nil
	}
	e := &EntryInfo{
		Name: w.Name, Type: fileTypeName(w.Type), Path: w.Path, Permissions: w.Permissions,
		Owner: w.Owner, Group: w.Group, Size: int64(w.Size), Mode: w.Mode, Metadata: w.Metadata,
	}
	if w.ModifiedTime != nil {
		e.ModifiedTime = *w.ModifiedTime
	}
	if w.SymlinkTarget != nil {
		e.SymlinkTarget = *w.SymlinkTarget
	}
	return e
}

func fileTypeName(t string) string {
	switch t {
	case "FILE_TYPE_FILE", "1":
		return FileTypeFile
	case "FILE_TYPE_DIRECTORY", "2":
		return FileTypeDir
	case "FILE_TYPE_SYMLINK", "3":
		return FileTypeSymlink
	}
	return ""
}

type entryResponse struct {
	Entry *wireEntry `json:"entry"`
}

type pathRequest struct {
	Path string `json:"path"`
}

func (e *Envd) entryCall(ctx context.Context, op, procedure string, class retryClass, in any) (*EntryInfo, error) {
	var out entryResponse
	if err := e.unary(ctx, op, procedure, class, in, &out); err != nil {
		return nil, err
	}
	if out.Entry == nil {
		return nil, fmt.Errorf("%s: answer carries no entry", opName(op, e.t.SandboxID))
	}
	return out.Entry.toEntry(), nil
}

// Stat describes path; a missing path gives IsNotFound.
func (e *Envd) Stat(ctx context.Context, path string) (*EntryInfo, error) {
	return e.entryCall(ctx, "envd Filesystem/Stat", "filesystem.Filesystem/Stat", retryIdempotent, pathRequest{path})
}

// MakeDir creates path and its parents; an existing directory gives IsConflict.
func (e *Envd) MakeDir(ctx context.Context, path string) (*EntryInfo, error) {
	return e.entryCall(ctx, "envd Filesystem/MakeDir", "filesystem.Filesystem/MakeDir", retryIdempotent, pathRequest{path})
}

// Move renames src to dst (creating dst's parents). Not retried on 5xx or
// connection errors: a repeated move would fail with not_found.
func (e *Envd) Move(ctx context.Context, src, dst string) (*EntryInfo, error) {
	in := struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
	}{src, dst}
	return e.entryCall(ctx, "envd Filesystem/Move", "filesystem.Filesystem/Move", retryRateLimited, in)
}

// ListDir lists path down to depth levels (0 is treated as 1).
func (e *Envd) ListDir(ctx context.Context, path string, depth uint32) ([]EntryInfo, error) {
	var list []EntryInfo
	err := e.ListDirEach(ctx, path, depth, func(en EntryInfo) error {
		list = append(list, en)
		return nil
	})
	return list, err
}

// listEntryLimit bounds the JSON of one listed entry (a name and a link target of at most
// a few KiB each, and the metadata of an upload).
const listEntryLimit = 1 << 20

// ListDirEach lists path down to depth levels (0 is treated as 1), handing each entry to
// each as it is decoded: memory stays the size of one entry however large the folder. An
// error from each ends the listing with that error.
func (e *Envd) ListDirEach(ctx context.Context, path string, depth uint32, each func(EntryInfo) error) error {
	const op = "envd Filesystem/ListDir"
	in := struct {
		Path  string `json:"path"`
		Depth uint32 `json:"depth,omitempty"`
	}{path, max(depth, 1)}
	body, err := e.unaryAnswer(ctx, op, "filesystem.Filesystem/ListDir", retryIdempotent, in)
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }() // not drained: an endless answer is not read to its end
	capped := &resettableCap{r: body, left: listEntryLimit, limit: listEntryLimit}
	dec := json.NewDecoder(capped)
	bad := func(err error) error {
		return &transportError{op: op, sandboxID: e.t.SandboxID, err: fmt.Errorf("decode response: %w", err)}
	}
	if err := expectDelim(dec, '{'); err != nil {
		return bad(err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if key != "entries" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err)
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return bad(err)
		}
		for dec.More() {
			capped.left = listEntryLimit
			var w wireEntry
			if err := dec.Decode(&w); err != nil {
				return bad(err)
			}
			if err := each(*w.toEntry()); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return bad(err)
		}
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, got %v", want, t)
	}
	return nil
}

// Remove deletes path recursively; a missing path is not an error.
func (e *Envd) Remove(ctx context.Context, path string) error {
	return e.unary(ctx, "envd Filesystem/Remove", "filesystem.Filesystem/Remove", retryIdempotent, pathRequest{path}, nil)
}
