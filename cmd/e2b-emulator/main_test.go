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
	for len(env) < 3 && sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("stdout line %q is not KEY=value", sc.Text())
		}
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	for _, k := range []string{"E2B_API_URL", "E2B_SANDBOX_URL", "E2B_API_KEY"} {
		if env[k] == "" {
			t.Fatalf("%s missing from %v", k, env)
		}
	}
	fileEnv, err := os.ReadFile(envFile)
	if err != nil || !bytes.Contains(fileEnv, []byte("E2B_API_KEY="+env["E2B_API_KEY"])) {
		t.Fatalf("env file %q: %v", fileEnv, err)
	}
	req, _ := http.NewRequest("GET", env["E2B_API_URL"]+"/templates/aliases/tpl", nil)
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
