package e2b

import (
	"context"
	"errors"
	"fmt"
	pathpkg "path"
)

// NotAFileError is RemoveFile's refusal of anything but a regular file.
type NotAFileError struct {
	Path string
	Type string // FileTypeDir, or "" when envd did not say
}

func (e *NotAFileError) Error() string {
	if e.Type == FileTypeDir {
		return fmt.Sprintf("%s is a directory, not a regular file; it was not removed", e.Path)
	}
	return fmt.Sprintf("%s is not a regular file; it was not removed", e.Path)
}

// IsNotAFile reports a RemoveFile refusal.
func IsNotAFile(err error) bool {
	var e *NotAFileError
	return errors.As(err, &e)
}

// RemoveFile deletes path when it is a regular file (a symbolic link loses only the link); a
// missing path is not an error. envd's Remove deletes directories with everything in them and has
// no mode that refuses them, so RemoveFile first runs `rm -f` (without -r it unlinks and never
// removes a directory, whatever replaced the file in the meantime) in the file's directory as the
// Envd's user: one request, and no moment at which a directory could be taken for the file. Only
// when rm cannot do it (the path is a directory, the user may not delete it, the template has no
// rm) is the entry checked with Stat: anything but a regular file is refused with a
// *NotAFileError, and a regular file is removed with envd's Remove.
func (e *Envd) RemoveFile(ctx context.Context, path string) error {
	if removeWithRm(ctx, e, path) {
		return nil
	}
	entry, err := e.Stat(ctx, path)
	switch {
	case IsNotFound(err):
		return nil
	case err != nil:
		return err
	case entry.Type != FileTypeFile:
		return &NotAFileError{Path: path, Type: entry.Type}
	}
	return e.Remove(ctx, path)
}

// removeWithRm runs `rm -f -- <name>` in the directory of path (absolute paths only: envd
// resolves the others for its own calls) and reports whether rm ended with status 0, that is
// whether nothing is left at path. The name is given relative to the working directory so that
// it means the same file wherever envd maps the sandbox's directories.
func removeWithRm(ctx context.Context, e *Envd, path string) bool {
	if !pathpkg.IsAbs(path) || pathpkg.Clean(path) == "/" {
		return false
	}
	path = pathpkg.Clean(path)
	stream, err := e.StartProcess(ctx, StartProcessRequest{
		Process: ProcessConfig{Cmd: "rm", Args: []string{"-f", "--", pathpkg.Base(path)}, Cwd: pathpkg.Dir(path)},
	})
	if err != nil {
		return false
	}
	defer func() { _ = stream.Close() }()
	for {
		ev, err := stream.Next()
		if err != nil {
			return false
		}
		if ev.Kind == EventEnd {
			return ev.Exited && ev.ExitCode == 0
		}
	}
}
