package bench

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/test/harness"
)

// The outside anchor: HashiCorp's time provider, built on the same plugin
// framework, whose time_static resources make no API calls.
const (
	timeProviderModule  = "github.com/hashicorp/terraform-provider-time"
	timeProviderVersion = "v0.14.2"
	timeProviderAddress = "hashicorp/time"
)

// timeProviderBinary returns the time provider at timeProviderVersion,
// installing it into the repository's .cache/anchors on first use.
func timeProviderBinary(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(harness.RepoRoot(tb), ".cache", "anchors")
	bin := filepath.Join(dir, "terraform-provider-time")
	if info, err := buildinfo.ReadFile(bin); err == nil && info.Main.Path == timeProviderModule && info.Main.Version == timeProviderVersion {
		return bin
	}
	cmd := exec.Command("go", "install", timeProviderModule+"@"+timeProviderVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go install %s@%s: %v\n%s", timeProviderModule, timeProviderVersion, err, out)
	}
	return bin
}

// wrappedProvider is a directory for dev_overrides whose provider binary is
// cpuwrap in front of the real one, so every provider process the CLI starts
// reports its CPU time.
type wrappedProvider struct {
	Dir string
}

// wrapProvider puts cpuwrap, named terraform-provider-<name>, in front of the
// provider binary real.
func wrapProvider(tb testing.TB, real, name string) *wrappedProvider {
	tb.Helper()
	wrapper, err := os.ReadFile(filepath.Join(harness.Build(tb, "./test/bench/cpuwrap", "cpuwrap"), "cpuwrap"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "terraform-provider-"+name), wrapper, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte(real), 0o600); err != nil {
		tb.Fatal(err)
	}
	return &wrappedProvider{Dir: dir}
}

// Take returns how many provider processes ended since the last Take and the
// CPU time (user + system) they used together.
func (w *wrappedProvider) Take(tb testing.TB) (procs int, cpu time.Duration) {
	tb.Helper()
	log := filepath.Join(w.Dir, "cpu.log")
	raw, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	_ = os.Remove(log)
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		user, err1 := strconv.ParseInt(f[0], 10, 64)
		sys, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("cpu.log: bad line %q", line)
		}
		procs++
		cpu += time.Duration(user+sys) * time.Microsecond
	}
	return procs, cpu
}
