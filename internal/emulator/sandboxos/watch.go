package sandboxos

// envd's filesystem.EventType names.
const (
	EventCreate = "EVENT_TYPE_CREATE"
	EventWrite  = "EVENT_TYPE_WRITE"
	EventRemove = "EVENT_TYPE_REMOVE"
	EventRename = "EVENT_TYPE_RENAME"
	EventChmod  = "EVENT_TYPE_CHMOD"
)

// Change is one event of a watched directory: the path relative to it
// ("." for the directory itself) and the envd event type.
type Change struct {
	Name string
	Op   string
}

// DirWatch watches one directory (and, recursive, every directory below it,
// including those created later). WatchDirTree starts one; the channel
// closes after Close or when the watch fails.
type DirWatch interface {
	Changes() <-chan Change
	Close()
}
