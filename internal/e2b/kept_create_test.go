package e2b

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// keptEnv is an emulator and a client whose requests a test may intercept.
type keptEnv struct {
	t   *testing.T
	srv *emulator.Server
	c   *Client
	ctx context.Context

	mu        sync.Mutex
	intercept map[string]func(r *http.Request, next http.RoundTripper) (*http.Response, error) // by "METHOD /path", once each
}

func newKeptEnv(t *testing.T) *keptEnv {
	t.Helper()
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	e := &keptEnv{t: t, srv: srv, intercept: map[string]func(*http.Request, http.RoundTripper) (*http.Response, error){}}
	next := http.DefaultTransport.(*http.Transport).Clone()
	cfg := fastConfig(srv.APIURL())
	cfg.APIKey, cfg.SandboxURL = srv.APIKey(), srv.SandboxURL()
	cfg.HTTPClient = &http.Client{Transport: rtFunc(func(r *http.Request) (*http.Response, error) {
		e.mu.Lock()
		f := e.intercept[r.Method+" "+r.URL.Path]
		delete(e.intercept, r.Method+" "+r.URL.Path)
		e.mu.Unlock()
		if f != nil {
			return f(r, next)
		}
		return next.RoundTrip(r)
	})}
	e.c = newTestClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	e.ctx = ctx
	return e
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// once intercepts the next request to route ("METHOD /path").
func (e *keptEnv) once(route string, f func(r *http.Request, next http.RoundTripper) (*http.Response, error)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.intercept[route] = f
}

// raw calls the emulator directly, as another client would.
func (e *keptEnv) raw(method, path string, body any) []byte {
	e.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, e.srv.APIURL()+path, bytes.NewReader(data))
	req.Header.Set("X-API-Key", e.srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		e.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return out
}

func (e *keptEnv) posts(route string) int { return e.srv.Counters().Requests[route] }

func (e *keptEnv) sandbox() string {
	e.t.Helper()
	sb, err := e.c.CreateSandbox(e.ctx, CreateSandboxRequest{TemplateID: "base", Timeout: 300})
	if err != nil {
		e.t.Fatal(err)
	}
	return sb.SandboxID
}

// keptKind is one kind of object E2B keeps, as the tests create and count it.
type keptKind struct {
	name, route string
	create      func(e *keptEnv) (id string, err error)
	ids         func(e *keptEnv) []string // every object of the kind that exists
}

func webhookInput(name string) WebhookInput {
	url, secret := "https://hooks.example.com/e2b", "s3cret"
	return WebhookInput{Name: &name, URL: &url, SignatureSecret: &secret, Events: []string{"sandbox.lifecycle.killed"}}
}

func keptKinds(sandboxID string) []keptKind {
	snapshotIDs := func(e *keptEnv) []string {
		list, err := e.c.ListSnapshots(e.ctx, ListSnapshotsParams{SandboxID: sandboxID})
		if err != nil {
			e.t.Fatal(err)
		}
		var ids []string
		for _, s := range list {
			ids = append(ids, s.SnapshotID)
		}
		return ids
	}
	snapshotRoute := "POST /sandboxes/{id}/snapshots"
	return []keptKind{
		{"volume", "POST /volumes", func(e *keptEnv) (string, error) {
			v, err := e.c.CreateVolume(e.ctx, "data")
			return idOr(v, err, func(v *Volume) string { return v.VolumeID })
		}, func(e *keptEnv) []string {
			list, err := e.c.ListVolumes(e.ctx)
			if err != nil {
				e.t.Fatal(err)
			}
			var ids []string
			for _, v := range list {
				ids = append(ids, v.VolumeID)
			}
			return ids
		}},
		{"secret", "POST /secrets", func(e *keptEnv) (string, error) {
			s, err := e.c.CreateSecret(e.ctx, "api-token", "v1", map[string]string{"owner": "ci"})
			return idOr(s, err, func(s *Secret) string { return s.SecretID })
		}, func(e *keptEnv) []string {
			list, err := e.c.ListSecrets(e.ctx)
			if err != nil {
				e.t.Fatal(err)
			}
			var ids []string
			for _, s := range list {
				ids = append(ids, s.SecretID)
			}
			return ids
		}},
		{"webhook", "POST /events/webhooks", func(e *keptEnv) (string, error) {
			w, err := e.c.CreateWebhook(e.ctx, webhookInput("deploys"))
			return idOr(w, err, func(w *Webhook) string { return w.WebhookID })
		}, func(e *keptEnv) []string {
			list, err := e.c.ListWebhooks(e.ctx)
			if err != nil {
				e.t.Fatal(err)
			}
			var ids []string
			for _, w := range list {
				ids = append(ids, w.WebhookID)
			}
			return ids
		}},
		{"named snapshot", snapshotRoute, func(e *keptEnv) (string, error) {
			s, err := e.c.CreateSnapshot(e.ctx, sandboxID, "golden")
			return idOr(s, err, func(s *SnapshotInfo) string { return s.SnapshotID })
		}, snapshotIDs},
		{"unnamed snapshot", snapshotRoute, func(e *keptEnv) (string, error) {
			s, err := e.c.CreateSnapshot(e.ctx, sandboxID, "")
			return idOr(s, err, func(s *SnapshotInfo) string { return s.SnapshotID })
		}, snapshotIDs},
	}
}

func idOr[T any](v *T, err error, id func(*T) string) (string, error) {
	if v == nil {
		return "", err
	}
	return id(v), err
}

// TestLostCreateAnswersAreSettled: E2B makes the object and the answer is
// lost (the connection cut, or a gateway's 504 in its place). The create
// finds the object, returns it without error and never sends the create
// again: one object, the one returned.
func TestLostCreateAnswersAreSettled(t *testing.T) {
	for _, how := range []string{emulator.LostDrop, emulator.LostGateway} {
		e := newKeptEnv(t)
		sandboxID := e.sandbox()
		for _, k := range keptKinds(sandboxID) {
			before := k.ids(e)
			sent := e.posts(k.route)
			e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: []string{k.route}})
			id, err := k.create(e)
			e.srv.SetFaults(emulator.Faults{})
			if err != nil {
				t.Fatalf("%s, answer lost by %s: %v", k.name, how, err)
			}
			made := newIDs(before, k.ids(e))
			if len(made) != 1 || made[0] != id {
				t.Fatalf("%s, answer lost by %s: returned %q, made %v: want exactly the one returned", k.name, how, id, made)
			}
			if n := e.posts(k.route) - sent; n != 1 {
				t.Fatalf("%s, answer lost by %s: create sent %d times, want once", k.name, how, n)
			}
		}
	}
}

func newIDs(before, after []string) []string {
	var out []string
	for _, id := range after {
		if !slices.Contains(before, id) {
			out = append(out, id)
		}
	}
	return out
}

// TestKeptCreatesNeverAdoptWhatExisted: an object that existed before the
// create (same name, or the same configuration) is never taken for the
// create's own, whether E2B's refusal arrives or is lost.
func TestKeptCreatesNeverAdoptWhatExisted(t *testing.T) {
	e := newKeptEnv(t)
	var theirs struct {
		VolumeID string `json:"volumeID"`
	}
	_ = json.Unmarshal(e.raw("POST", "/volumes", map[string]string{"name": "shared"}), &theirs)
	for _, lose := range []bool{false, true} {
		if lose {
			e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{emulator.LostGateway}, Routes: []string{"POST /volumes"}})
		}
		v, err := e.c.CreateVolume(e.ctx, "shared")
		e.srv.SetFaults(emulator.Faults{})
		var ex *ExistsError
		if v != nil || !errors.As(err, &ex) || ex.ID != theirs.VolumeID || !IsExists(err) {
			t.Fatalf("volume whose name was taken before (refusal lost: %v): %+v, %v; want an *ExistsError naming %s", lose, v, err, theirs.VolumeID)
		}
	}

	// A secret made by another client, and one made by an earlier create of
	// this client whose answer was lost (it carries another create token).
	e.raw("POST", "/secrets", map[string]any{"name": "foreign", "value": "x"})
	e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, Routes: []string{"POST /secrets"}})
	if _, err := e.c.CreateSecret(e.ctx, "earlier", "x", nil); err != nil {
		t.Fatal(err)
	}
	for name, why := range map[string]string{"foreign": "does not carry this create's token", "earlier": "an earlier create of this client"} {
		s, err := e.c.CreateSecret(e.ctx, name, "mine", nil)
		if s != nil || !IsExists(err) || !strings.Contains(err.Error(), why) {
			t.Fatalf("secret %q that this create did not make: %+v, %v", name, s, err)
		}
	}
	e.srv.SetFaults(emulator.Faults{})
	if s, err := e.c.CreateSecret(e.ctx, "foreign", "mine", nil); !IsExists(err) || s != nil {
		t.Fatalf("secret refused as taken, answer not lost: %+v, %v", s, err)
	}

	// A webhook identical to an existing one: the lost create adopts the new
	// webhook, not the old one.
	old, err := e.c.CreateWebhook(e.ctx, webhookInput("twin"))
	if err != nil {
		t.Fatal(err)
	}
	e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, Routes: []string{"POST /events/webhooks"}})
	w, err := e.c.CreateWebhook(e.ctx, webhookInput("twin"))
	e.srv.SetFaults(emulator.Faults{})
	if err != nil || w.WebhookID == old.WebhookID {
		t.Fatalf("identical webhook registered before: %+v, %v; want the new one", w, err)
	}
	if list, _ := e.c.ListWebhooks(e.ctx); len(list) != 2 {
		t.Fatalf("webhooks %+v: want the old one and this create's", list)
	}

	// The same for an unnamed snapshot of a sandbox that already has one.
	sandboxID := e.sandbox()
	first, err := e.c.CreateSnapshot(e.ctx, sandboxID, "")
	if err != nil {
		t.Fatal(err)
	}
	e.srv.SetFaults(emulator.Faults{LoseAnswer: 1, Routes: []string{"POST /sandboxes/{id}/snapshots"}})
	second, err := e.c.CreateSnapshot(e.ctx, sandboxID, "")
	e.srv.SetFaults(emulator.Faults{})
	if err != nil || second.SnapshotID == first.SnapshotID {
		t.Fatalf("unnamed snapshot after another: %+v, %v; want the new one", second, err)
	}
}

// TestKeptCreateCannotTellConcurrentTwinsApart: while the answer is lost,
// another client makes an object this create cannot be told from (an
// identical webhook, an unnamed snapshot of the same sandbox). The create
// adopts neither, does not send again, and names both.
func TestKeptCreateCannotTellConcurrentTwinsApart(t *testing.T) {
	e := newKeptEnv(t)
	sandboxID := e.sandbox()
	twinThenLose := func(twin func()) func(*http.Request, http.RoundTripper) (*http.Response, error) {
		return func(r *http.Request, next http.RoundTripper) (*http.Response, error) {
			twin()
			resp, err := next.RoundTrip(r)
			if err == nil {
				_ = resp.Body.Close()
			}
			return nil, errors.New("connection reset by peer")
		}
	}
	e.once("POST /events/webhooks", twinThenLose(func() {
		e.raw("POST", "/events/webhooks", map[string]any{"name": "twin", "url": "https://hooks.example.com/e2b",
			"events": []string{"sandbox.lifecycle.killed"}, "signatureSecret": "other"})
	}))
	w, err := e.c.CreateWebhook(e.ctx, webhookInput("twin"))
	var unknown *UnknownCreateError
	if w != nil || !errors.As(err, &unknown) || len(unknown.Candidates) != 2 {
		t.Fatalf("webhook with a concurrent twin: %+v, %v; want an *UnknownCreateError naming both", w, err)
	}
	if n := e.posts("POST /events/webhooks"); n != 2 {
		t.Fatalf("%d webhook creates reached E2B, want 2 (the twin's and this one, never sent again)", n)
	}

	e.once("POST /sandboxes/"+sandboxID+"/snapshots", twinThenLose(func() {
		e.raw("POST", "/sandboxes/"+sandboxID+"/snapshots", map[string]any{})
	}))
	s, err := e.c.CreateSnapshot(e.ctx, sandboxID, "")
	if s != nil || !errors.As(err, &unknown) || len(unknown.Candidates) != 2 || !strings.Contains(err.Error(), unknown.Candidates[1]) {
		t.Fatalf("unnamed snapshot with a concurrent twin: %+v, %v; want an *UnknownCreateError naming both", s, err)
	}
}

// TestKeptCreateInterrupted: the caller's context ends while the answer is
// on its way. An object E2B made is found and returned with an
// *InterruptedCreateError; when none was made the error says what may still
// appear and how to recognise it.
func TestKeptCreateInterrupted(t *testing.T) {
	quickSettle(t, 300*time.Millisecond)
	e := newKeptEnv(t)
	sandboxID := e.sandbox()
	for _, made := range []bool{true, false} {
		for i, k := range keptKinds(sandboxID) {
			if !made && i == 0 {
				_ = e.c.DeleteVolume(e.ctx, k.ids(e)[0])
			}
			before := k.ids(e)
			ctx, cancel := context.WithCancel(e.ctx)
			path := strings.ReplaceAll(strings.TrimPrefix(k.route, "POST "), "{id}", sandboxID)
			e.once("POST "+path, func(r *http.Request, next http.RoundTripper) (*http.Response, error) {
				if made {
					resp, err := next.RoundTrip(r.WithContext(context.WithoutCancel(r.Context())))
					if err == nil {
						_ = resp.Body.Close()
					}
				}
				cancel()
				return nil, context.Canceled
			})
			orig := e.ctx
			e.ctx = ctx
			id, err := k.create(e)
			e.ctx = orig
			cancel()
			var interrupted *InterruptedCreateError
			var unknown *UnknownCreateError
			switch {
			case made && (!errors.As(err, &interrupted) || id == "" || interrupted.ID != id):
				t.Fatalf("%s made, then interrupted: %q, %v; want it with an *InterruptedCreateError", k.name, id, err)
			case !made && (!errors.As(err, &unknown) || id != "" || unknown.MayExist == ""):
				t.Fatalf("%s interrupted before E2B got it: %q, %v; want an *UnknownCreateError saying what may exist", k.name, id, err)
			}
			if got := newIDs(before, k.ids(e)); (made && len(got) != 1) || (!made && len(got) != 0) {
				t.Fatalf("%s (made %v): new objects %v", k.name, made, got)
			}
			if !made {
				t.Logf("%s: %v", k.name, err)
			}
		}
		if made { // make room for the same names again
			for _, s := range mustList(e.c.ListSecrets(e.ctx)) {
				_ = e.c.DeleteSecret(e.ctx, s.SecretID)
			}
		}
	}
}

func mustList[T any](v []T, err error) []T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestKeptCreateSentAgainWhenNothingWasMade: the first create never reached
// E2B (its connection failed with no answer). A volume is sent again at
// once (E2B would refuse a second one of the name); a webhook only after the
// window in which E2B may still finish the first. Either way: one object.
func TestKeptCreateSentAgainWhenNothingWasMade(t *testing.T) {
	quickSettle(t, 300*time.Millisecond)
	e := newKeptEnv(t)
	lost := func(*http.Request, http.RoundTripper) (*http.Response, error) {
		return nil, errors.New("read: connection reset by peer")
	}
	e.once("POST /volumes", lost)
	if _, err := e.c.CreateVolume(e.ctx, "data"); err != nil {
		t.Fatal(err)
	}
	e.once("POST /events/webhooks", lost)
	if _, err := e.c.CreateWebhook(e.ctx, webhookInput("hook")); err != nil {
		t.Fatal(err)
	}
	vols := mustList(e.c.ListVolumes(e.ctx))
	hooks := mustList(e.c.ListWebhooks(e.ctx))
	if len(vols) != 1 || len(hooks) != 1 || e.posts("POST /volumes") != 1 || e.posts("POST /events/webhooks") != 1 {
		t.Fatalf("volumes %v, webhooks %v, creates that reached E2B: %d, %d; want one of each",
			vols, hooks, e.posts("POST /volumes"), e.posts("POST /events/webhooks"))
	}
}

// TestSecretCreateTokenStaysOutOfMetadata: the create token is E2B's to keep
// and the client's to read, never the caller's.
func TestSecretCreateTokenStaysOutOfMetadata(t *testing.T) {
	e := newKeptEnv(t)
	s, err := e.c.CreateSecret(e.ctx, "tok", "v", map[string]string{"owner": "ci"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.c.GetSecret(e.ctx, s.SecretID)
	if err != nil {
		t.Fatal(err)
	}
	listed := mustList(e.c.ListSecrets(e.ctx))
	for _, md := range []map[string]string{s.Metadata, got.Metadata, listed[0].Metadata} {
		if len(md) != 1 || md["owner"] != "ci" {
			t.Fatalf("metadata %v: want the caller's alone", md)
		}
	}
	raw := string(e.raw("GET", "/secrets/"+s.SecretID, nil))
	if !strings.Contains(raw, IdempotencyMetadataKey) {
		t.Fatalf("E2B keeps no create token: %s", raw)
	}
	if u, err := e.c.UpdateSecret(e.ctx, s.SecretID, "v2", map[string]string{"owner": "cd"}); err != nil || fmt.Sprint(u.Metadata) != "map[owner:cd]" {
		t.Fatalf("update: %+v, %v", u, err)
	}

	if err := CheckSecretMetadata(map[string]string{IdempotencyMetadataKey: "x"}); err == nil {
		t.Fatal("the create token's key accepted in the caller's metadata")
	}
	full := map[string]string{}
	for i := range SecretMetadataMaxEntries {
		full[fmt.Sprintf("k%d", i)] = "v"
	}
	if err := CheckSecretMetadata(full); err == nil {
		t.Fatalf("%d entries leave no room for the create token", len(full))
	}
	token, _ := newCreateToken()
	if len(IdempotencyMetadataKey)+len(token) != createTokenMetadataBytes {
		t.Fatalf("the create token takes %d bytes, the limits reserve %d", len(IdempotencyMetadataKey)+len(token), createTokenMetadataBytes)
	}
}

// TestLostWebhookCreateIgnoresItsSiblings: another webhook registered at the
// same moment to the same URL under another name (a second resource of the
// same configuration) does not stand in the way: it is not this create's.
func TestLostWebhookCreateIgnoresItsSiblings(t *testing.T) {
	e := newKeptEnv(t)
	e.once("POST /events/webhooks", func(r *http.Request, next http.RoundTripper) (*http.Response, error) {
		e.raw("POST", "/events/webhooks", map[string]any{"name": "sibling", "url": "https://hooks.example.com/e2b",
			"events": []string{"sandbox.lifecycle.created"}, "signatureSecret": "other"})
		resp, err := next.RoundTrip(r)
		if err == nil {
			_ = resp.Body.Close()
		}
		return nil, errors.New("connection reset by peer")
	})
	w, err := e.c.CreateWebhook(e.ctx, webhookInput("mine"))
	if err != nil || w.Name != "mine" {
		t.Fatalf("lost create next to a sibling: %+v, %v; want this create's webhook", w, err)
	}
}

// TestKeptCreateWhoseFirstAttemptLandsLate: the first create got no answer
// and was not found, so it was sent again; the first then lands just before
// the second, which E2B refuses as taken. The object the first made is this
// create's (a volume that was not there before; a secret with this create's
// token) and is adopted: one object, no error.
func TestKeptCreateWhoseFirstAttemptLandsLate(t *testing.T) {
	quickSettle(t, 300*time.Millisecond)
	e := newKeptEnv(t)
	for _, route := range []string{"POST /volumes", "POST /secrets"} {
		e.once(route, func(first *http.Request, next http.RoundTripper) (*http.Response, error) {
			body, _ := io.ReadAll(first.Body)
			e.once(route, func(second *http.Request, next http.RoundTripper) (*http.Response, error) {
				late := first.Clone(context.Background())
				late.Body = io.NopCloser(bytes.NewReader(body))
				if resp, err := next.RoundTrip(late); err == nil {
					_ = resp.Body.Close()
				}
				return next.RoundTrip(second)
			})
			return nil, errors.New("read: connection reset by peer")
		})
	}
	v, err := e.c.CreateVolume(e.ctx, "late")
	if err != nil || len(mustList(e.c.ListVolumes(e.ctx))) != 1 {
		t.Fatalf("volume whose first create landed late: %+v, %v", v, err)
	}
	s, err := e.c.CreateSecret(e.ctx, "late", "v", nil)
	if err != nil || len(mustList(e.c.ListSecrets(e.ctx))) != 1 {
		t.Fatalf("secret whose first create landed late: %+v, %v", s, err)
	}
	if e.posts("POST /volumes") != 2 || e.posts("POST /secrets") != 2 {
		t.Fatalf("creates that reached E2B: %d volumes, %d secrets; want 2 each (the late one and the refused one)",
			e.posts("POST /volumes"), e.posts("POST /secrets"))
	}
}
