package e2b

// The words E2B uses for a sandbox's state, its timeout action and the kinds of
// filesystem entries. Callers compare with these, never with literals.
const (
	SandboxStateRunning = "running"
	SandboxStatePaused  = "paused"

	// OnTimeoutKill and OnTimeoutPause are a sandbox's Lifecycle.OnTimeout.
	OnTimeoutKill  = "kill"
	OnTimeoutPause = "pause"

	// FileTypeFile, FileTypeDir and FileTypeSymlink are EntryInfo.Type.
	FileTypeFile    = "file"
	FileTypeDir     = "dir"
	FileTypeSymlink = "symlink"
)

// SandboxStates lists every state a listing can filter on.
func SandboxStates() []string { return []string{SandboxStateRunning, SandboxStatePaused} }

// Paused reports whether the sandbox was paused when it was read.
func (d *SandboxDetail) Paused() bool { return d.State == SandboxStatePaused }

// PausesOnTimeout reports whether the sandbox pauses, rather than ends, when its timeout runs out.
func (l *Lifecycle) PausesOnTimeout() bool { return l != nil && l.OnTimeout == OnTimeoutPause }

// The directions and levels of a sandbox's logs (LogsParams).
const (
	LogsForward  = "forward"
	LogsBackward = "backward"

	LogLevelDebug = "debug"
	LogLevelInfo  = "info"
	LogLevelWarn  = "warn"
	LogLevelError = "error"
)

// LogDirections lists the directions logs can be read in.
func LogDirections() []string { return []string{LogsForward, LogsBackward} }

// LogLevels lists the log levels from the lowest.
func LogLevels() []string { return []string{LogLevelDebug, LogLevelInfo, LogLevelWarn, LogLevelError} }
