package buildcontext

// What a COPY sends, as the tests compare it with E2B's SDK and with the archive: the build
// itself reads copyEntries directly.

// Entry is one path a COPY step sends, relative to the context.
type Entry struct {
	Path string // "/"-separated, "" for the context directory itself
	Kind string // "file", "dir", "symlink" or "other"
}

// CopyEntries lists what a COPY of src sends, in the order it is hashed.
func (c Context) CopyEntries(src string, resolveSymlinks bool) ([]Entry, error) {
	es, _, err := c.copyEntries(src, resolveSymlinks)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = Entry{Path: e.rel, Kind: kindName(e.kind)}
	}
	return out, nil
}

func kindName(k entryKind) string {
	switch k {
	case kindDir:
		return "dir"
	case kindFile:
		return "file"
	case kindLink:
		return "symlink"
	}
	return "other"
}
