// Package netrules holds the emulator's model of E2B's sandbox egress, without any state or
// I/O of the emulator's own: which destinations allowOut and denyOut admit, which network rule
// applies to a host, how a rule's header placeholders are filled, and a SOCKS5 dialer for a
// sandbox's egress proxy. The egress proxy uses it; it imports nothing of the emulator.
package netrules
