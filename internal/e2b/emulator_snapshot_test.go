package e2b_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestEmulatorSnapshots(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})
	if _, err := e.envd(sb).WriteFile(e.ctx, "/home/user/snap.txt", strings.NewReader("captured"), e2b.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	named, err := e.c.CreateSnapshot(e.ctx, sb.SandboxID, "snap-one")
	if err != nil || named.SnapshotID == "" || len(named.Names) == 0 {
		t.Fatalf("named snapshot: %+v %v", named, err)
	}
	var unnamed []string
	for range 2 {
		s, err := e.c.CreateSnapshot(e.ctx, sb.SandboxID, "")
		if err != nil {
			t.Fatal(err)
		}
		unnamed = append(unnamed, s.SnapshotID)
	}
	list, err := e.c.ListSnapshots(e.ctx, e2b.ListSnapshotsParams{SandboxID: sb.SandboxID, Limit: 1})
	if err != nil || len(list) != 3 {
		t.Fatalf("list by sandbox, pages of 1: %+v %v", list, err)
	}
	if n := e.srv.Counters().Requests["GET /snapshots"]; n < 3 {
		t.Fatalf("3 snapshots in %d requests with limit 1", n)
	}
	byName, err := e.c.ListSnapshots(e.ctx, e2b.ListSnapshotsParams{Name: "snap-one"})
	if err != nil || len(byName) != 1 || byName[0].SnapshotID != named.SnapshotID {
		t.Fatalf("list by name: %+v %v", byName, err)
	}

	// A sandbox from the snapshot sees the captured file.
	child := e.create(t, e2b.CreateSandboxRequest{TemplateID: named.SnapshotID})
	rc, err := e.envd(child).ReadFile(e.ctx, "/home/user/snap.txt", e2b.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || string(got) != "captured" {
		t.Fatalf("file in sandbox from snapshot: %q %v", got, err)
	}
	// In use: E2B refuses to delete it.
	if err := e.c.DeleteSnapshot(e.ctx, named.SnapshotID); !e2b.IsBadRequest(err) {
		t.Fatalf("delete snapshot in use: want 400, got %v", err)
	}
	if err := e.c.KillSandbox(e.ctx, child.SandboxID); err != nil {
		t.Fatal(err)
	}
	for _, id := range append(unnamed, named.SnapshotID) {
		if err := e.c.DeleteSnapshot(e.ctx, id); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	if err := e.c.DeleteSnapshot(e.ctx, named.SnapshotID); !e2b.IsNotFound(err) {
		t.Fatalf("delete twice: %v", err)
	}
	if list, err := e.c.ListSnapshots(e.ctx, e2b.ListSnapshotsParams{SandboxID: sb.SandboxID}); err != nil || len(list) != 0 {
		t.Fatalf("after delete: %+v %v", list, err)
	}
}

func TestEmulatorMetricsAndLogs(t *testing.T) {
	e := newEnv(t)
	a := e.create(t, e2b.CreateSandboxRequest{})
	// Some lifecycle activity so that there are log entries, a few ms apart
	// so that millisecond cursors separate them.
	for range 2 {
		time.Sleep(5 * time.Millisecond)
		if err := e.c.PauseSandbox(e.ctx, a.SandboxID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		if _, _, err := e.c.ConnectSandbox(e.ctx, a.SandboxID, 300); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().Add(-time.Minute)
	end := time.Now().Add(time.Minute)
	metrics, err := e.c.GetSandboxMetrics(e.ctx, a.SandboxID, &start, &end)
	if err != nil || len(metrics) == 0 {
		t.Fatalf("metrics: %v %v", metrics, err)
	}
	m := metrics[len(metrics)-1]
	if m.CPUCount <= 0 || m.MemTotal <= 0 || m.TimestampUnix == 0 || m.Timestamp.IsZero() {
		t.Fatalf("metric %+v", m)
	}
	if _, err := e.c.GetSandboxMetrics(e.ctx, a.SandboxID, nil, nil); err != nil {
		t.Fatal(err)
	}

	first, err := e.c.GetSandboxLogs(e.ctx, a.SandboxID, e2b.LogsParams{Direction: "forward", Limit: 100})
	if err != nil || len(first) < 2 {
		t.Fatalf("logs: %+v %v", first, err)
	}
	// Cursor paging: pages of one entry, forward, from the first timestamp.
	var paged []e2b.SandboxLogEntry
	cursor := first[0].Timestamp.UnixMilli()
	for len(paged) < len(first) {
		page, err := e.c.GetSandboxLogs(e.ctx, a.SandboxID, e2b.LogsParams{Cursor: &cursor, Limit: 1, Direction: "forward"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		next := page[len(page)-1].Timestamp.UnixMilli() + 1
		cursor = next
	}
	if len(paged) != len(first) {
		t.Fatalf("cursor paging gave %d entries, one page gave %d", len(paged), len(first))
	}
	for i := range paged {
		if paged[i].Message != first[i].Message || !paged[i].Timestamp.Equal(first[i].Timestamp) {
			t.Fatalf("entry %d: paged %+v, listed %+v", i, paged[i], first[i])
		}
	}
	if _, err := e.c.GetSandboxLogs(e.ctx, "inotthere00000000000a", e2b.LogsParams{}); !e2b.IsNotFound(err) {
		t.Fatalf("logs of unknown: %v", err)
	}
}

// TestNamedSnapshotsKeepTheirOwnIdentity: two snapshots taken under one name
// are two builds with an ID each; deleting one leaves the other whole, and
// the template goes with the last one.
func TestNamedSnapshotsKeepTheirOwnIdentity(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{})
	write := func(content string) {
		t.Helper()
		if _, err := e.envd(sb).WriteFile(e.ctx, "/home/user/which.txt", strings.NewReader(content), e2b.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	write("first")
	first, err := e.c.CreateSnapshot(e.ctx, sb.SandboxID, "shared")
	if err != nil {
		t.Fatal(err)
	}
	write("second")
	second, err := e.c.CreateSnapshot(e.ctx, sb.SandboxID, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if first.SnapshotID == second.SnapshotID || first.Template() != second.Template() {
		t.Fatalf("two snapshots named alike: %q and %q; want two IDs in one template", first.SnapshotID, second.SnapshotID)
	}
	if _, err := e.c.CreateSnapshot(e.ctx, sb.SandboxID, "shared:v1"); err == nil {
		t.Fatal("a name with a tag must be refused: each snapshot gets a tag of its own")
	}
	readFrom := func(snapshotID string) string {
		t.Helper()
		child := e.create(t, e2b.CreateSandboxRequest{TemplateID: snapshotID})
		defer func() { _ = e.c.KillSandbox(e.ctx, child.SandboxID) }()
		rc, err := e.envd(child).ReadFile(e.ctx, "/home/user/which.txt", e2b.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rc.Close() }()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	if got := readFrom(first.SnapshotID); got != "first" {
		t.Fatalf("sandbox from the first snapshot reads %q", got)
	}
	// E2B lists the name's template once, as its newest build, under a name
	// without a tag; the older snapshot is still found by its ID.
	byName, err := e.c.ListSnapshots(e.ctx, e2b.ListSnapshotsParams{Name: "shared"})
	if err != nil || len(byName) != 1 || byName[0].SnapshotID != second.SnapshotID || len(byName[0].Names) != 1 ||
		byName[0].Names[0] != first.Template() {
		t.Fatalf("list by name: %+v %v; want the newest snapshot once, named %s", byName, err, first.Template())
	}
	if s, err := e.c.FindSnapshot(e.ctx, first.SnapshotID); err != nil || s == nil || s.SnapshotID != first.SnapshotID {
		t.Fatalf("the older snapshot of the name is not found by its ID: %+v %v", s, err)
	}

	if err := e.c.DeleteSnapshot(e.ctx, first.SnapshotID); err != nil {
		t.Fatalf("delete the first: %v", err)
	}
	if s, err := e.c.FindSnapshot(e.ctx, first.SnapshotID); err != nil || s != nil {
		t.Fatalf("the first is still there: %+v %v", s, err)
	}
	if s, err := e.c.FindSnapshot(e.ctx, second.SnapshotID); err != nil || s == nil {
		t.Fatalf("deleting the first took the second with it: %+v %v", s, err)
	}
	if got := readFrom(second.SnapshotID); got != "second" {
		t.Fatalf("sandbox from the second snapshot reads %q", got)
	}
	if err := e.c.DeleteSnapshot(e.ctx, first.SnapshotID); !e2b.IsNotFound(err) {
		t.Fatalf("delete the first again: %v; want a not-found", err)
	}
	if err := e.c.DeleteSnapshot(e.ctx, second.SnapshotID); err != nil {
		t.Fatalf("delete the second: %v", err)
	}
	if _, err := e.c.GetTemplate(e.ctx, second.Template()); !e2b.IsNotFound(err) {
		t.Fatalf("the template must go with its last snapshot: %v", err)
	}
}
