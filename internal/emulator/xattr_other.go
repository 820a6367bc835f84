//go:build !linux

package emulator

import "errors"

// errNoXattrs stands for ENOTSUP where the emulator does not use extended
// attributes: file metadata is then not kept, as envd on such a file system.
var errNoXattrs = errors.New("extended attributes are not supported on this platform")

func listXattrs(string, bool) ([]string, error)           { return nil, errNoXattrs }
func getXattr(string, string, bool) ([]byte, bool, error) { return nil, false, errNoXattrs }
func setXattr(string, string, []byte, bool) error         { return errNoXattrs }
func removeXattr(string, string, bool) error              { return errNoXattrs }
func xattrUnsupported(err error) bool                     { return errors.Is(err, errNoXattrs) }
