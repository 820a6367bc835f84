// Package conformance holds the proof that E2B's official JavaScript SDK,
// unmodified, works against the emulator: scenario.mjs (run by run.sh for
// e2b 2.51.0 and 2.50.0) and a Go test that replays it through a proxy
// validating every exchange against E2B's published specs. See README.md.
package conformance
