package process

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// cpuProfileEnv names a directory: when set, every provider process writes a
// CPU profile there (cpu-<pid>.pprof) covering its whole life, for
// `go tool pprof`. The CLI starts several provider processes per run.
const cpuProfileEnv = "E2B_PROVIDER_CPUPROFILE"

// StartCPUProfile starts profiling when cpuProfileEnv is set and returns what
// stops it and writes the profile out.
func StartCPUProfile() (stop func()) {
	dir := os.Getenv(cpuProfileEnv)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err != nil {
		log.Printf("%s: %v", cpuProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Printf("%s: %v", cpuProfileEnv, err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
