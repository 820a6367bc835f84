package process

import (
	"os"
	"testing"
	"time"
)

func TestWatchCLICallsGoneOnceTheParentChanges(t *testing.T) {
	gone := make(chan struct{})
	// A parent ID that is not this process's parent stands for a CLI that has gone.
	go WatchCLI(os.Getppid()+1, time.Millisecond, func() { close(gone) })
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("gone was not called although the parent process changed")
	}
}

func TestWatchCLIWatchesNothingUnderInit(t *testing.T) {
	done := make(chan struct{})
	go func() {
		WatchCLI(1, time.Millisecond, func() { t.Error("gone called for a provider whose parent is init") })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WatchCLI kept watching a provider whose parent is init")
	}
}
