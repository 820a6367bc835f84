package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

func TestRunPrintsEnvAndServesUntilSignalled(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "emulator.env")
	dataDir := filepath.Join(dir, "data")
	stop := make(chan os.Signal, 1)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"-env-file", envFile, "-data-dir", dataDir, "-seed-template", "tpl:3"}, pw, io.Discard, stop)
		_ = pw.Close()
	}()
	env := map[string]string{}
	sc := bufio.NewScanner(pr)
	for len(env) < 5 && sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("stdout line %q is not KEY=value", sc.Text())
		}
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	for _, k := range []string{"E2B_API_URL", "E2B_SANDBOX_URL", "E2B_API_KEY", "E2B_ACCESS_TOKEN", "E2B_EMULATOR_ADMIN_TOKEN"} {
		if env[k] == "" {
			t.Fatalf("%s missing from %v", k, env)
		}
	}
	fileEnv, err := os.ReadFile(envFile)
	if err != nil || !bytes.Contains(fileEnv, []byte("E2B_API_KEY="+env["E2B_API_KEY"])) ||
		!bytes.Contains(fileEnv, []byte("E2B_ACCESS_TOKEN="+env["E2B_ACCESS_TOKEN"])) ||
		!bytes.Contains(fileEnv, []byte("E2B_EMULATOR_ADMIN_TOKEN="+env["E2B_EMULATOR_ADMIN_TOKEN"])) {
		t.Fatalf("env file %q: %v", fileEnv, err)
	}
	for token, want := range map[string]int{"": http.StatusUnauthorized, env["E2B_EMULATOR_ADMIN_TOKEN"]: http.StatusOK} {
		req, _ := http.NewRequest("GET", env["E2B_API_URL"]+"/_emulator/counters", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("admin API with token %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
	// The access token opens what E2B's spec opens to it: the user's teams.
	req, _ := http.NewRequest("GET", env["E2B_API_URL"]+"/teams", nil)
	req.Header.Set("Authorization", "Bearer "+env["E2B_ACCESS_TOKEN"])
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /teams with E2B_ACCESS_TOKEN: %v %v", resp, err)
	} else {
		_ = resp.Body.Close()
	}
	req, _ = http.NewRequest("GET", env["E2B_API_URL"]+"/templates/aliases/tpl", nil)
	req.Header.Set("X-API-Key", env["E2B_API_KEY"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("seeded template alias: %d", resp.StatusCode)
	}
	stop <- syscall.SIGTERM
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after SIGTERM")
	}
	if _, err := http.Get(env["E2B_API_URL"] + "/health"); err == nil {
		t.Fatal("still serving after shutdown")
	}
}

// TestHelpSaysWhatThisHostLacks: -help ends with the sandbox isolation
// this host gives, one line per gap.
func TestHelpSaysWhatThisHostLacks(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-help"}, io.Discard, &out, nil); err == nil {
		t.Fatal("-help ran the emulator")
	}
	_, tail, ok := strings.Cut(out.String(), "\nSandbox isolation on this host:\n")
	if !ok {
		t.Fatalf("-help says nothing of this host's isolation:\n%s", out.String())
	}
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	if gaps := sandboxos.HostGaps(); len(gaps) > 0 && len(lines) != len(gaps) {
		t.Fatalf("-help lists %q, want one line per gap %q", lines, gaps)
	}
}

func TestParseSeed(t *testing.T) {
	for _, bad := range []string{"x:0", "x:y", ":2"} {
		if _, err := parseSeed(bad); err == nil {
			t.Errorf("parseSeed(%q) accepted", bad)
		}
	}
	if s, err := parseSeed("name:4"); err != nil || s.Names[0] != "name" || s.Builds != 4 {
		t.Errorf("parseSeed(name:4) = %+v, %v", s, err)
	}
}
