package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestVolumesSurviveReopenAndNamesStayUnique(t *testing.T) {
	dir := t.TempDir()
	st := New()
	if _, err := st.OpenVolumes(dir); err != nil {
		t.Fatal(err)
	}
	v, err := st.CreateVolume(Volume{ID: "vol1", Name: "data", Key: "k", CreatedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateVolume(Volume{ID: "vol2", Name: "data"}); !errors.Is(err, ErrVolumeExists) {
		t.Fatalf("second volume named data: %v, want ErrVolumeExists", err)
	}
	if fi, err := os.Stat(st.VolumeData(v.ID)); err != nil || !fi.IsDir() {
		t.Fatalf("content directory: %v", err)
	}
	again := New()
	if _, err := again.OpenVolumes(dir); err != nil {
		t.Fatal(err)
	}
	if got, ok := again.VolumeByName("data"); !ok || got.ID != "vol1" || got.Key != "k" {
		t.Fatalf("reopened store has %+v, %v", got, ok)
	}
	if ok, err := again.DeleteVolume("vol1"); !ok || err != nil {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "vol1")); !os.IsNotExist(err) {
		t.Fatalf("volume directory after delete: %v", err)
	}
}

func TestSecretViewsAreCopies(t *testing.T) {
	st := New()
	sc, ok := st.CreateSecret("sec_1", "token", "v1", map[string]string{"a": "1"})
	if !ok {
		t.Fatal("create failed")
	}
	sc.Metadata["a"] = "changed"
	if _, ok := st.CreateSecret("sec_2", "token", "x", nil); ok {
		t.Fatal("a second secret named token was created")
	}
	if _, ok := st.AddSecretVersion("token", "v2", nil); !ok {
		t.Fatal("update by name failed")
	}
	got, _ := st.Secret("sec_1")
	if got.Metadata["a"] != "1" || got.CurrentVersion != 2 {
		t.Fatalf("stored secret %+v", got)
	}
	if v, _ := st.SecretValue("token"); v != "v2" {
		t.Fatalf("value %q, want the newest version", v)
	}
}

func TestRecordEventNamesEnabledSubscribedWebhooks(t *testing.T) {
	st := New()
	on, off := true, false
	events := []string{"sandbox.lifecycle.killed"}
	st.AddWebhook(Webhook{ID: "a"}, WebhookChange{Enabled: &on, Events: &events})
	st.AddWebhook(Webhook{ID: "b"}, WebhookChange{Enabled: &off, Events: &events})
	other := []string{"sandbox.lifecycle.paused"}
	st.AddWebhook(Webhook{ID: "c"}, WebhookChange{Enabled: &on, Events: &other})
	ids := st.RecordEvent(Event{ID: "e1", Type: "sandbox.lifecycle.killed", SandboxID: "s1"})
	if len(ids) != 1 || ids[0] != "a" {
		t.Fatalf("webhooks %v, want [a]", ids)
	}
	for i := range MaxEvents {
		st.RecordEvent(Event{ID: "x", Type: "sandbox.lifecycle.paused", SandboxID: "s2", Timestamp: time.Unix(int64(i), 0)})
	}
	if evs := st.Events("s1", nil, true); len(evs) != 0 {
		t.Fatalf("the oldest event outlived %d newer ones", MaxEvents)
	}
	if evs := st.Events("", map[string]bool{"sandbox.lifecycle.paused": true}, false); len(evs) != MaxEvents || evs[0].Timestamp.Unix() != MaxEvents-1 {
		t.Fatalf("%d events, first %v", len(evs), evs[0].Timestamp)
	}
}
