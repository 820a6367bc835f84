package process

import (
	"os"
	"time"
)

// CLIWatchInterval is how often the provider checks that the CLI that started it still runs.
const CLIWatchInterval = 500 * time.Millisecond

// WatchCLI calls gone once the CLI that started the provider has ended without stopping it (it
// was killed with SIGKILL, or crashed): the provider is then reparented, so its parent process
// ID changes. go-plugin, which serves the provider to Terraform and OpenTofu alike, only ends the
// provider when the CLI asks it to, so without this a provider whose CLI was killed would run on
// forever and keep the ephemeral sandboxes it opened alive until their timeout. A provider whose
// parent is already init (a debug session, or a parent that died before the first check) is
// not watched. On Windows the parent ID does not change and nothing is watched.
func WatchCLI(parent int, every time.Duration, gone func()) {
	if parent <= 1 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		if os.Getppid() != parent {
			gone()
			return
		}
	}
}
