package process

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStartCPUProfileWritesAProfileWhenAsked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(cpuProfileEnv, dir)
	StartCPUProfile()()
	matches, _ := filepath.Glob(filepath.Join(dir, "cpu-*.pprof"))
	if len(matches) != 1 {
		t.Fatalf("profiles written: %v, want one", matches)
	}
	if fi, err := os.Stat(matches[0]); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %s is empty or unreadable: %v", matches[0], err)
	}
}

func TestStartCPUProfileDoesNothingByDefault(t *testing.T) {
	t.Setenv(cpuProfileEnv, "")
	StartCPUProfile()() // must not panic or write anywhere
}
