package base

import (
	"testing"
)

func TestMergedMetadata(t *testing.T) {
	d := &ProviderData{DefaultMetadata: map[string]string{"team": "a", "env": "default"}}
	got := d.MergedMetadata(map[string]string{"env": "own"})
	if len(got) != 2 || got["team"] != "a" || got["env"] != "own" {
		t.Fatalf("MergedMetadata = %v", got)
	}
	if (*ProviderData)(nil).MergedMetadata(map[string]string{"x": "y"})["x"] != "y" {
		t.Fatal("nil provider data must still return the sandbox's own metadata")
	}
}
