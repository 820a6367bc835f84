package e2b

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// TestTakeLatestSnapshotSettlesLostAnswers: the snapshot's answer is lost
// (dropped, or a gateway's 504), then the answer of the tag move is lost
// too. The call still succeeds, sends the snapshot once, makes one build,
// and the name starts it: a destroy waiting on it goes on and nothing is
// taken twice.
func TestTakeLatestSnapshotSettlesLostAnswers(t *testing.T) {
	for _, how := range []string{emulator.LostDrop, emulator.LostGateway} {
		e := newKeptEnv(t)
		sandboxID := e.sandbox()
		first, err := e.c.TakeLatestSnapshot(e.ctx, sandboxID, "lost-"+how)
		if err != nil {
			t.Fatal(err)
		}
		e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: []string{"POST /sandboxes/{id}/snapshots"}})
		e.once("POST /templates/tags", func(r *http.Request, next http.RoundTripper) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err == nil {
				_ = resp.Body.Close()
			}
			return nil, errors.New("connection reset by peer")
		})
		sent := e.posts("POST /sandboxes/{id}/snapshots")
		got, err := e.c.TakeLatestSnapshot(e.ctx, sandboxID, "lost-"+how)
		e.srv.SetFaults(emulator.Faults{})
		if err != nil {
			t.Fatalf("answers lost by %s: %v", how, err)
		}
		if n := e.posts("POST /sandboxes/{id}/snapshots") - sent; n != 1 {
			t.Fatalf("answers lost by %s: snapshot sent %d times, want once", how, n)
		}
		if got.Builds != 2 || got.SnapshotID == first.SnapshotID || got.Template != first.Template {
			t.Fatalf("answers lost by %s: %+v after %+v; want a second build of the same template", how, got, first)
		}
		tags, err := e.c.ListTemplateTags(e.ctx, got.Template)
		if err != nil {
			t.Fatal(err)
		}
		_, ownTag := splitSnapshotID(got.SnapshotID)
		builds := map[string]string{}
		for _, tg := range tags {
			builds[tg.Tag] = tg.BuildID
		}
		if builds[defaultTag] == "" || builds[defaultTag] != builds[ownTag] || builds[ownTag] != got.BuildID {
			t.Fatalf("answers lost by %s: tags %+v; want default on the new build %s (%s)", how, tags, got.BuildID, ownTag)
		}
	}
}

// TestTakeLatestSnapshotNeedsAName: an empty name is refused before any request.
func TestTakeLatestSnapshotNeedsAName(t *testing.T) {
	e := newKeptEnv(t)
	if _, err := e.c.TakeLatestSnapshot(e.ctx, "abc", ""); err == nil || !strings.Contains(err.Error(), "name is required") {
		t.Fatalf("empty name: %v", err)
	}
	if n := e.posts("POST /sandboxes/{id}/snapshots"); n != 0 {
		t.Fatalf("%d snapshot requests for an empty name", n)
	}
}
