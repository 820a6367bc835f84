package sandboxos_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// Emulators on other data directories sweep away every empty parent cgroup
// but their own when they start, also while this one is making a sandbox's
// cgroup in its own (tests start many emulators at once): a create must
// still get its cgroup.
func TestSandboxCgroupSurvivesOtherEmulatorsSweeps(t *testing.T) {
	skipWithoutCgroups(t)
	mine, err := sandboxos.SetupCgroups(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Remove()
	other, err := sandboxos.SetupCgroups(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Remove()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				other.Sweep()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := range 300 {
		g, err := mine.New(fmt.Sprintf("sb%d", i), sandboxos.Limits{MemoryMB: 64, CPUCount: 1})
		if err != nil {
			t.Fatalf("create %d while another emulator sweeps: %v", i, err)
		}
		g.Remove()
	}
}
