//go:build !linux

package hostfs

import "errors"

// errNoXattrs stands for ENOTSUP where the emulator does not use extended
// attributes: file metadata is then not kept, as envd on such a file system.
var errNoXattrs = errors.New("extended attributes are not supported on this platform")

func ListXattrs(string, bool) ([]string, error)           { return nil, errNoXattrs }
func GetXattr(string, string, bool) ([]byte, bool, error) { return nil, false, errNoXattrs }
func SetXattr(string, string, []byte, bool) error         { return errNoXattrs }
func RemoveXattr(string, string, bool) error              { return errNoXattrs }
func XattrUnsupported(err error) bool                     { return errors.Is(err, errNoXattrs) }
