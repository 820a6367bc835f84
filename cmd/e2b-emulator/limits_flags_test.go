package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

func TestLimitFlagsReachTheEmulator(t *testing.T) {
	stop := make(chan os.Signal, 1)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"-quiet", "-api-key", "e2b_limits_test", "-admin-token", "adm_limits_test", "-max-concurrent-sandboxes", "20", "-create-rate", "1", "-api-rate", "20000/30s"}, pw, io.Discard, stop)
		_ = pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	apiURL := ""
	for apiURL == "" && sc.Scan() {
		apiURL, _ = strings.CutPrefix(sc.Text(), "E2B_API_URL=")
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	req, _ := http.NewRequest(http.MethodGet, apiURL+"/_emulator/limits", nil)
	req.Header.Set("Authorization", "Bearer adm_limits_test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got emulator.Limits
	err = json.NewDecoder(resp.Body).Decode(&got)
	_ = resp.Body.Close()
	want := emulator.Limits{MaxConcurrentSandboxes: 20, CreateRate: 1, CreateBurst: 1, APIRequests: 20000, APIPeriod: 30 * time.Second}
	if err != nil || got != want {
		t.Fatalf("limits %+v (%v), want %+v", got, err, want)
	}
	stop <- syscall.SIGTERM
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestBadLimitFlagsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-api-rate", "20000"}, {"-api-rate", "x/30s"}, {"-api-rate", "10/0s"},
		{"-create-rate", "-1"}, {"-max-concurrent-sandboxes", "-2"},
	} {
		if err := run(append([]string{"-quiet"}, args...), io.Discard, io.Discard, nil); err == nil {
			t.Errorf("run %v: accepted", args)
		}
	}
}
