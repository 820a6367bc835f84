package e2b_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// execSandbox starts an emulator and a sandbox in it, returning the sandbox's envd.
func execSandbox(t *testing.T) (*e2b.Client, *e2b.Envd, string) {
	t.Helper()
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := e2b.New(e2b.Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		t.Fatalf("create sandbox: %v", err)
	}
	envd, err := client.SandboxEnvd(context.Background(), sb.SandboxID, "")
	if err != nil {
		t.Fatalf("envd: %v", err)
	}
	return client, envd, sb.SandboxID
}

func TestExecStdinEnvCwd(t *testing.T) {
	_, envd, _ := execSandbox(t)
	ctx := context.Background()
	dir, err := envd.MakeDir(ctx, "~/work")
	if err != nil {
		t.Fatalf("mkdir: %v", err)
	}
	res, err := envd.Exec(ctx, e2b.ExecRequest{
		Command: `cat; echo "FOO=$FOO"; pwd`,
		Stdin:   strings.NewReader("from stdin\n"),
		Env:     map[string]string{"FOO": "bar baz"},
		Cwd:     "~/work",
		Timeout: time.Minute,
	})
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	want := "from stdin\nFOO=bar baz\n" + dir.Path + "\n"
	if res.ExitCode != 0 || res.Stdout != want || res.Stderr != "" {
		t.Fatalf("got exit %d stdout %q stderr %q; want exit 0 stdout %q", res.ExitCode, res.Stdout, res.Stderr, want)
	}
	if res.TotalLines != 3 || res.Truncated() || res.TimedOut {
		t.Fatalf("lines=%d truncated=%v timedOut=%v", res.TotalLines, res.Truncated(), res.TimedOut)
	}
}

func TestExecWithoutStdinReadsNothing(t *testing.T) {
	_, envd, _ := execSandbox(t)
	// Without stdin the process must not wait for input.
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: "wc -c", Timeout: time.Minute})
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	if res.TimedOut || strings.TrimSpace(res.Stdout) != "0" {
		t.Fatalf("got %+v, want 0 bytes read", res)
	}
}

func TestExecNonZeroExit(t *testing.T) {
	_, envd, _ := execSandbox(t)
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: "echo partial; echo boom >&2; exit 3"})
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	if res.ExitCode != 3 || res.Stdout != "partial\n" || res.Stderr != "boom\n" || res.TotalLines != 2 {
		t.Fatalf("got %+v", res)
	}
}

func TestExecBatchesKeepStreamsApart(t *testing.T) {
	_, envd, _ := execSandbox(t)
	var mu sync.Mutex
	var out, errs strings.Builder
	batches := 0
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{
		Command: `for i in 1 2 3 4 5; do echo "out $i"; echo "err $i" >&2; done`,
		OnOutput: func(b e2b.OutputBatch) {
			mu.Lock()
			defer mu.Unlock()
			batches++
			if b.Stream == e2b.Stderr {
				errs.WriteString(b.Text)
			} else {
				out.WriteString(b.Text)
			}
		},
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	if out.String() != "out 1\nout 2\nout 3\nout 4\nout 5\n" || errs.String() != "err 1\nerr 2\nerr 3\nerr 4\nerr 5\n" {
		t.Fatalf("stdout batches %q, stderr batches %q", out.String(), errs.String())
	}
	if batches > 4 {
		t.Fatalf("%d batches for 10 short lines printed at once; want them grouped", batches)
	}
}

// processGone polls envd until pid is no longer listed (envd reaps the killed process).
func processGone(t *testing.T, envd *e2b.Envd, pid uint32) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		procs, err := envd.ListProcesses(context.Background())
		if err != nil {
			t.Fatalf("list processes: %v", err)
		}
		found := false
		for _, p := range procs {
			found = found || p.PID == pid
		}
		if !found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running after the kill: %+v", pid, procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestExecTimeoutKillsProcess(t *testing.T) {
	_, envd, _ := execSandbox(t)
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{
		Command: "echo started; sleep 600; echo never",
		Timeout: time.Second,
	})
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	if !res.TimedOut || res.ExitCode != e2b.ExitCodeTimeout || res.Stdout != "started\n" {
		t.Fatalf("got %+v, want timed out with exit 124 and the output so far", res)
	}
	processGone(t, envd, res.PID)
}

func TestExecCancelKillsProcess(t *testing.T) {
	_, envd, _ := execSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := envd.Exec(ctx, e2b.ExecRequest{
		Command:       "echo started; sleep 600",
		BatchInterval: 10 * time.Millisecond,
		OnOutput: func(b e2b.OutputBatch) {
			if strings.Contains(b.Text, "started") {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.PID == 0 {
		t.Fatalf("want the partial result with the PID, got %+v", res)
	}
	processGone(t, envd, res.PID)
}

func TestExecSandboxGone(t *testing.T) {
	client, envd, id := execSandbox(t)
	if err := client.KillSandbox(context.Background(), id); err != nil {
		t.Fatalf("kill: %v", err)
	}
	_, err := envd.Exec(context.Background(), e2b.ExecRequest{Command: "true"})
	if !e2b.IsSandboxNotRunning(err) {
		t.Fatalf("err = %v, want sandbox not running (502)", err)
	}
	if _, err := client.SandboxEnvd(context.Background(), id, ""); !e2b.IsNotFound(err) {
		t.Fatalf("SandboxEnvd err = %v, want not found", err)
	}
}

// TestExecLargeOutputBoundedMemory streams 100 MiB through Exec and samples
// the heap: it must stay far below the size of the output.
func TestExecLargeOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MiB; skipped with -short")
	}
	_, envd, _ := execSandbox(t)
	const total = 100 << 20
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var batched atomic.Int64
	start := time.Now()
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{
		// 1 Mi lines of 100 bytes.
		Command:        "yes '" + strings.Repeat("x", 99) + "' | head -c 104857600",
		MaxOutputBytes: 4096,
		OnOutput:       func(b e2b.OutputBatch) { batched.Add(int64(len(b.Text))) },
	})
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	if res.TotalLines != total/100 || !res.StdoutTruncated || len(res.Stdout) != 4096 || batched.Load() != total {
		t.Fatalf("lines=%d truncated=%v tail=%d batched=%d", res.TotalLines, res.StdoutTruncated, len(res.Stdout), batched.Load())
	}
	t.Logf("100 MiB in %s (%.0f MiB/s), peak heap in use %.1f MiB (emulator included)",
		elapsed.Round(time.Millisecond), 100/elapsed.Seconds(), float64(peak.Load())/(1<<20))
	if peak.Load() > 48<<20 {
		t.Fatalf("peak heap %d MiB while streaming 100 MiB: output is being held in memory", peak.Load()>>20)
	}
}

func TestExecLargeStdin(t *testing.T) {
	_, envd, _ := execSandbox(t)
	input := strings.Repeat("0123456789abcdef", 20000) // 320 000 bytes: several SendInput calls.
	res, err := envd.Exec(context.Background(), e2b.ExecRequest{
		Command: "sha256sum | cut -d' ' -f1; echo done >&2",
		Stdin:   strings.NewReader(input),
		Timeout: time.Minute,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, res)
	}
	sum := sha256.Sum256([]byte(input))
	if got := strings.TrimSpace(res.Stdout); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("the command saw other input: sha256 %s", got)
	}
}

// BenchmarkExecOutput measures output streaming through envd and Exec (MB/s).
func BenchmarkExecOutput(b *testing.B) {
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	client, err := e2b.New(e2b.Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	sb, err := client.CreateSandbox(context.Background(), e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		b.Fatal(err)
	}
	envd, err := client.SandboxEnvd(context.Background(), sb.SandboxID, "")
	if err != nil {
		b.Fatal(err)
	}
	const size = 16 << 20
	b.SetBytes(size)
	for b.Loop() {
		res, err := envd.Exec(context.Background(), e2b.ExecRequest{
			Command:  "head -c 16777216 /dev/zero | tr '\\0' x",
			OnOutput: func(e2b.OutputBatch) {},
		})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("exec: %v %+v", err, res)
		}
	}
}
