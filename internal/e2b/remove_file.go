package e2b

import (
	"context"
	"errors"
	"fmt"
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

// RemoveFile deletes path when it is a regular file (a symlink to one loses only the link); a
// missing path is not an error. envd's Remove deletes directories with everything in them and
// has no mode that refuses them, so the entry is checked first and anything that is not a
// regular file is refused with a *NotAFileError.
func (e *Envd) RemoveFile(ctx context.Context, path string) error {
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
