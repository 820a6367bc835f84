package store

import (
	"strconv"
	"testing"
)

// A webhook's history keeps its newest MaxDeliveriesPerWebhook attempts,
// ignores attempts for a webhook that is gone, and goes with the webhook.
func TestDeliveryHistoryIsBoundedAndGoesWithItsWebhook(t *testing.T) {
	st := New()
	st.AddWebhook(Webhook{ID: "hook"}, WebhookChange{})
	for i := range MaxDeliveriesPerWebhook + 10 {
		st.RecordDelivery(WebhookDelivery{ID: strconv.Itoa(i), WebhookID: "hook"})
	}
	st.RecordDelivery(WebhookDelivery{ID: "stray", WebhookID: "gone"})
	got, ok := st.WebhookDeliveries("hook")
	if !ok || len(got) != MaxDeliveriesPerWebhook || got[0].ID != "10" || got[len(got)-1].ID != strconv.Itoa(MaxDeliveriesPerWebhook+9) {
		t.Fatalf("history of %d from %q: want the newest %d", len(got), got[0].ID, MaxDeliveriesPerWebhook)
	}
	if _, ok := st.WebhookDeliveries("gone"); ok {
		t.Fatal("an attempt for a webhook that is gone made a history")
	}
	st.DeleteWebhook("hook")
	st.AddWebhook(Webhook{ID: "hook"}, WebhookChange{})
	if got, _ := st.WebhookDeliveries("hook"); len(got) != 0 {
		t.Fatalf("a webhook registered again under the same ID has %d old attempts", len(got))
	}
}
