//go:build !linux

package sandboxos

// ListeningSockets cannot tell sockets apart outside Linux: nil, which ListensOn reads as "any
// process may listen".
func ListeningSockets(uint16) map[uint64]bool { return nil }

// HoldsSocket cannot tell outside Linux.
func HoldsSocket(int, map[uint64]bool) bool { return false }
