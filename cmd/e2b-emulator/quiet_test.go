package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildEmulator builds this command into a temporary directory, so the tests
// below run the real binary as users and CI run it.
func buildEmulator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "e2b-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestQuietKeepsAPIKeyOutOfOutput runs the binary with -quiet, as a CI job
// would, and searches everything it printed for the API key, which only the
// env file may hold.
func TestQuietKeepsAPIKeyOutOfOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stops the emulator with SIGTERM, which Windows does not have")
	}
	bin := buildEmulator(t)
	dir := t.TempDir()
	envFile := filepath.Join(dir, "emulator.env")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-quiet", "-env-file", envFile, "-data-dir", filepath.Join(dir, "data"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	var env []byte
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if env, _ = os.ReadFile(envFile); len(env) > 0 {
			break
		}
	}
	key, admin, access := "", "", ""
	for _, line := range strings.Split(string(env), "\n") {
		if v, ok := strings.CutPrefix(line, "E2B_API_KEY="); ok {
			key = v
		}
		if v, ok := strings.CutPrefix(line, "E2B_ACCESS_TOKEN="); ok {
			access = v
		}
		if v, ok := strings.CutPrefix(line, "E2B_EMULATOR_ADMIN_TOKEN="); ok {
			admin = v
		}
	}
	if !strings.HasPrefix(key, "e2b_") || !strings.HasPrefix(admin, "e2badm_") || !strings.HasPrefix(access, "sk_e2b_") {
		t.Fatalf("env file %q lacks the API key, the access token or the admin token", env)
	}
	if st, err := os.Stat(envFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("env file mode: %v %v (want 0600: it holds the key)", st.Mode(), err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\nstderr: %s", err, stderr.String())
	}
	out := stdout.String() + stderr.String()
	if strings.Contains(out, key) || strings.Contains(out, "E2B_API_KEY") || strings.Contains(out, admin) || strings.Contains(out, access) {
		t.Fatalf("-quiet printed the API key, the access token or the admin token:\n%s", out)
	}
	if !strings.Contains(stdout.String(), "E2B_API_URL=http://127.0.0.1:") || !strings.Contains(stdout.String(), "E2B_SANDBOX_URL=") {
		t.Fatalf("stdout lacks the URLs:\n%s", stdout.String())
	}
}

// TestQuietWithoutEnvFileIsRefused: with -quiet and neither -env-file nor
// -api-key, nobody could learn the key, so the binary says what to add.
func TestQuietWithoutEnvFileIsRefused(t *testing.T) {
	bin := buildEmulator(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-quiet").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "give -env-file FILE to receive it, or choose it with -api-key") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	if strings.Contains(string(out), "e2b_") {
		t.Fatalf("printed a key:\n%s", out)
	}
}
