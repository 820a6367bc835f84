package e2b_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

func ids(list []e2b.ListedSandbox) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, s.SandboxID)
	}
	sort.Strings(out)
	return out
}

func TestEmulatorListSandboxesPagesAndFilters(t *testing.T) {
	e := newEnv(t)
	before := time.Now().Add(-time.Second)
	var all []string
	for i := range 7 {
		sb := e.create(t, e2b.CreateSandboxRequest{Metadata: map[string]string{"group": "paging", "odd key": fmt.Sprintf("v&%d=x", i%2)}})
		all = append(all, sb.SandboxID)
	}
	other := e.create(t, e2b.CreateSandboxRequest{Metadata: map[string]string{"group": "other"}})
	for _, id := range all[:2] {
		if err := e.c.PauseSandbox(e.ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(all)

	// Several pages of 2, walked by hand and by ListSandboxes.
	p := e2b.ListSandboxesParams{Metadata: map[string]string{"group": "paging"}, Limit: 2, States: []string{"running", "paused"}}
	var walked []e2b.ListedSandbox
	token, pages := "", 0
	for {
		page, next, err := e.c.ListSandboxesPage(e.ctx, p, token)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 2 {
			t.Fatalf("page of %d with limit 2", len(page))
		}
		walked = append(walked, page...)
		pages++
		if next == "" {
			break
		}
		token = next
	}
	if pages != 4 || fmt.Sprint(ids(walked)) != fmt.Sprint(all) {
		t.Fatalf("walked %d pages: %v, want 4 pages of %v", pages, ids(walked), all)
	}
	got, err := e.c.ListSandboxes(e.ctx, p)
	if err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(all) {
		t.Fatalf("ListSandboxes: %v %v", ids(got), err)
	}

	// State filter.
	paused, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{States: []string{"paused"}, Limit: 1})
	if err != nil || len(paused) != 2 {
		t.Fatalf("paused: %v %v", ids(paused), err)
	}
	for _, s := range paused {
		if s.State != "paused" {
			t.Fatalf("state filter leaked %+v", s)
		}
	}
	// Metadata with characters that need E2B's double encoding.
	odd, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{States: []string{"running", "paused"},
		Metadata: map[string]string{"group": "paging", "odd key": "v&1=x"}})
	if err != nil || len(odd) != 3 {
		t.Fatalf("metadata with & and = and space: %v %v", ids(odd), err)
	}
	// Template, startedAfter and order filters.
	byTemplate, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{Template: "base", States: []string{"running", "paused"}, Order: "asc"})
	if err != nil || len(byTemplate) != 8 {
		t.Fatalf("template filter: %d %v", len(byTemplate), err)
	}
	if !byTemplate[0].StartedAt.Before(byTemplate[len(byTemplate)-1].StartedAt) && byTemplate[0].StartedAt != byTemplate[len(byTemplate)-1].StartedAt {
		t.Fatalf("order asc not applied")
	}
	future := time.Now().Add(time.Hour)
	if none, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{StartedAfter: &future}); err != nil || len(none) != 0 {
		t.Fatalf("startedAfter future: %v %v", ids(none), err)
	}
	if some, err := e.c.ListSandboxes(e.ctx, e2b.ListSandboxesParams{StartedAfter: &before}); err != nil || len(some) != 8 {
		t.Fatalf("startedAfter past (both states by default): %v %v", ids(some), err)
	}
	_ = other
}

func TestEmulatorTemplatesPageAndResolve(t *testing.T) {
	e := newEnv(t)
	for i := range 105 {
		e.srv.SeedTemplate(emulator.TemplateSeed{TemplateID: fmt.Sprintf("tpl%03d", i), Names: []string{fmt.Sprintf("team/tpl-%d", i)}, Builds: 1, CPUCount: 2, MemoryMB: 512})
	}
	e.srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "manybuilds", Names: []string{"many-builds"}, Builds: 130, CPUCount: 4, MemoryMB: 1024, DiskSizeMB: 2048})
	list, err := e.c.ListTemplates(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tpl := range list {
		if seen[tpl.TemplateID] {
			t.Fatalf("template %s listed twice", tpl.TemplateID)
		}
		seen[tpl.TemplateID] = true
	}
	if !seen["tpl000"] || !seen["tpl104"] || !seen["manybuilds"] || len(list) < 106 {
		t.Fatalf("listed %d templates, missing some of 106 seeded", len(list))
	}
	if n := e.srv.Counters().Requests["GET /v2/templates"]; n < 2 {
		t.Fatalf("106 templates fetched in %d request(s); paging not exercised", n)
	}
	tw, err := e.c.GetTemplate(e.ctx, "manybuilds")
	if err != nil {
		t.Fatal(err)
	}
	if len(tw.Builds) != 130 || tw.TemplateID != "manybuilds" {
		t.Fatalf("template with %d builds, want 130", len(tw.Builds))
	}
	buildIDs := map[string]bool{}
	for _, b := range tw.Builds {
		buildIDs[b.BuildID] = true
	}
	if len(buildIDs) != 130 {
		t.Fatalf("%d distinct builds across pages", len(buildIDs))
	}
	id, _, err := e.c.ResolveTemplateAlias(e.ctx, "many-builds")
	if err != nil || id != "manybuilds" {
		t.Fatalf("alias: %q %v", id, err)
	}
	if _, _, err := e.c.ResolveTemplateAlias(e.ctx, "no-such-alias"); !e2b.IsNotFound(err) {
		t.Fatalf("unknown alias: %v", err)
	}
	if _, err := e.c.GetTemplate(e.ctx, "no-such-template"); !e2b.IsNotFound(err) {
		t.Fatalf("unknown template: %v", err)
	}
}
