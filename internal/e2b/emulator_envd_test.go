package e2b_test

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// drain collects a stream until its end.
func drain(t *testing.T, s *e2b.ProcessStream) (stdout, stderr string, end e2b.ProcessEvent, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	for {
		ev, nerr := s.Next()
		if errors.Is(nerr, io.EOF) {
			return out.String(), errb.String(), end, nil
		}
		if nerr != nil {
			return out.String(), errb.String(), end, nerr
		}
		switch ev.Kind {
		case e2b.EventStdout:
			out.Write(ev.Data)
		case e2b.EventStderr:
			errb.Write(ev.Data)
		case e2b.EventEnd:
			end = ev
		}
	}
}

func bash(cmd string) e2b.ProcessConfig {
	return e2b.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}}
}

func TestEmulatorProcesses(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Secure: ptr(true), EnvVars: map[string]string{"SANDBOX_VAR": "sv"}})
	envd := e.envd(sb)

	cfg := bash(`echo out-$FOO-$SANDBOX_VAR; echo err >&2; pwd; exit 3`)
	cfg.Envs = map[string]string{"FOO": "foo"}
	cfg.Cwd = "/tmp"
	s, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: cfg, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if s.PID() == 0 {
		t.Fatal("no pid")
	}
	stdout, stderr, end, err := drain(t, s)
	_ = s.Close()
	if err != nil || stdout != "out-foo-sv\n/tmp\n" || stderr != "err\n" || end.ExitCode != 3 || !end.Exited {
		t.Fatalf("run: stdout %q stderr %q end %+v err %v", stdout, stderr, end, err)
	}

	// stdin, tag, list, connect, close stdin.
	cat, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: bash("cat; echo done"), Stdin: true, Tag: "cat-tag"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cat.Close() }()
	procs, err := envd.ListProcesses(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range procs {
		if p.PID == cat.PID() && p.Tag == "cat-tag" && p.Config.Cmd == "/bin/bash" {
			found = true
		}
	}
	if !found {
		t.Fatalf("process %d not listed with its tag: %+v", cat.PID(), procs)
	}
	attached, err := envd.ConnectProcess(e.ctx, cat.PID())
	if err != nil || attached.PID() != cat.PID() {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = attached.Close() }()
	if err := envd.SendInput(e.ctx, cat.PID(), []byte("hello stdin\n")); err != nil {
		t.Fatal(err)
	}
	if err := envd.CloseStdin(e.ctx, cat.PID()); err != nil {
		t.Fatal(err)
	}
	stdout, _, end, err = drain(t, cat)
	if err != nil || stdout != "hello stdin\ndone\n" || end.ExitCode != 0 || !end.Exited {
		t.Fatalf("cat: %q %+v %v", stdout, end, err)
	}
	stdout2, _, end2, err := drain(t, attached)
	if err != nil || stdout2 != "hello stdin\ndone\n" || !end2.Exited {
		t.Fatalf("attached stream: %q %+v %v", stdout2, end2, err)
	}

	// Signal.
	sleeper, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: bash("sleep 600")})
	if err != nil {
		t.Fatal(err)
	}
	if err := envd.SendSignal(e.ctx, sleeper.PID(), "SIGKILL"); err != nil {
		t.Fatal(err)
	}
	_, _, end, err = drain(t, sleeper)
	_ = sleeper.Close()
	if err != nil || end.Exited || end.ExitCode != -1 || !strings.Contains(end.Status, "killed") {
		t.Fatalf("killed process end %+v %v", end, err)
	}

	// Connect-Timeout-Ms ends the process with deadline_exceeded.
	slow, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: bash("sleep 600"), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = drain(t, slow)
	_ = slow.Close()
	var ae *e2b.APIError
	if !errors.As(err, &ae) || ae.Code != "deadline_exceeded" {
		t.Fatalf("timeout: want deadline_exceeded, got %v", err)
	}

	// Errors: unknown pid, bad cwd, missing token.
	if err := envd.SendSignal(e.ctx, 999999, "SIGTERM"); !e2b.IsNotFound(err) {
		t.Fatalf("signal unknown pid: %v", err)
	}
	if _, err := envd.ConnectProcess(e.ctx, 999999); !e2b.IsNotFound(err) {
		t.Fatalf("connect unknown pid: %v", err)
	}
	bad := bash("true")
	bad.Cwd = "/does/not/exist"
	if _, err := envd.StartProcess(e.ctx, e2b.StartProcessRequest{Process: bad}); !e2b.IsBadRequest(err) {
		t.Fatalf("bad cwd: %v", err)
	}
	noToken := e.c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID})
	if _, err := noToken.ListProcesses(e.ctx); !e2b.IsUnauthorized(err) {
		t.Fatalf("secure sandbox without token: %v", err)
	}
}

func TestEmulatorFilesystemAndFiles(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})
	envd := e.envd(sb)
	ctx := e.ctx

	dir, err := envd.MakeDir(ctx, "/home/user/work/sub")
	if err != nil || dir.Type != "dir" || dir.Path != "/home/user/work/sub" {
		t.Fatalf("mkdir: %+v %v", dir, err)
	}
	if _, err := envd.MakeDir(ctx, "/home/user/work/sub"); !e2b.IsConflict(err) {
		t.Fatalf("mkdir twice: %v", err)
	}
	for i, gz := range []bool{false, true} {
		content := strings.Repeat("line of text\n", 1000*(i+1))
		path := "/home/user/work/sub/file" + string(rune('a'+i)) + ".txt"
		info, err := envd.WriteFile(ctx, path, strings.NewReader(content), e2b.WriteOptions{Gzip: gz})
		if err != nil || info.Path != path || info.Type != "file" {
			t.Fatalf("write gzip=%v: %+v %v", gz, info, err)
		}
		rc, err := envd.ReadFile(ctx, path, e2b.ReadOptions{Gzip: gz})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || string(got) != content {
			t.Fatalf("read gzip=%v: %d bytes, %v", gz, len(got), err)
		}
		st, err := envd.Stat(ctx, path)
		if err != nil || st.Size != int64(len(content)) || st.Type != "file" || st.ModifiedTime.IsZero() || st.Permissions == "" {
			t.Fatalf("stat: %+v %v", st, err)
		}
	}
	// Relative paths resolve under /home/user, and commands see the files.
	if info, err := envd.WriteFile(ctx, "rel.txt", strings.NewReader("rel"), e2b.WriteOptions{}); err != nil || info.Path != "/home/user/rel.txt" {
		t.Fatalf("relative write: %+v %v", info, err)
	}
	s, err := envd.StartProcess(ctx, e2b.StartProcessRequest{Process: bash("cat /home/user/rel.txt")})
	if err != nil {
		t.Fatal(err)
	}
	out, _, _, err := drain(t, s)
	_ = s.Close()
	if err != nil || out != "rel" {
		t.Fatalf("command does not see the uploaded file: %q %v", out, err)
	}

	entries, err := envd.ListDir(ctx, "/home/user/work", 2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Path)
	}
	sort.Strings(names)
	want := "/home/user/work/sub /home/user/work/sub/filea.txt /home/user/work/sub/fileb.txt"
	if strings.Join(names, " ") != want {
		t.Fatalf("list depth 2: %v", names)
	}
	if shallow, err := envd.ListDir(ctx, "/home/user/work", 1); err != nil || len(shallow) != 1 {
		t.Fatalf("list depth 1: %+v %v", shallow, err)
	}
	moved, err := envd.Move(ctx, "/home/user/work/sub/filea.txt", "/home/user/moved/a.txt")
	if err != nil || moved.Path != "/home/user/moved/a.txt" {
		t.Fatalf("move: %+v %v", moved, err)
	}
	if _, err := envd.Move(ctx, "/home/user/work/sub/filea.txt", "/home/user/x"); !e2b.IsNotFound(err) {
		t.Fatalf("move missing: %v", err)
	}
	if err := envd.Remove(ctx, "/home/user/work"); err != nil {
		t.Fatal(err)
	}
	if err := envd.Remove(ctx, "/home/user/work"); err != nil {
		t.Fatalf("remove missing must succeed: %v", err)
	}
	if _, err := envd.Stat(ctx, "/home/user/work"); !e2b.IsNotFound(err) {
		t.Fatalf("stat removed: %v", err)
	}
	_, err = envd.ReadFile(ctx, "/home/user/nope.txt", e2b.ReadOptions{})
	if !e2b.IsNotFound(err) || !strings.Contains(err.Error(), "read file") || !strings.Contains(err.Error(), sb.SandboxID) {
		t.Fatalf("read missing: %v", err)
	}
	if _, err := envd.ReadFile(ctx, "/home/user", e2b.ReadOptions{}); !e2b.IsBadRequest(err) {
		t.Fatalf("read a directory: %v", err)
	}
	if running, err := envd.Health(ctx); err != nil || !running {
		t.Fatalf("health: %v %v", running, err)
	}
}

// envd's /metrics through the client: the emulator has no CPU hotplug and does not know the
// guest's out-of-memory kills.
func TestEmulatorEnvdMetrics(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Secure: ptr(true)})
	m, err := e.envd(sb).Metrics(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUCount == 0 || m.CPUPossible != m.CPUCount || m.CPUTarget != 0 || m.MemTotal == 0 || m.DiskTotal == 0 || m.OOMKills != nil {
		t.Fatalf("metrics %+v", m)
	}
}
