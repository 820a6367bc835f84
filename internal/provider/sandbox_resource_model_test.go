package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
)

func TestImportedTimeout(t *testing.T) {
	start := time.Now()
	d := &e2b.SandboxDetail{State: e2b.SandboxStateRunning, StartedAt: start, EndAt: start.Add(900*time.Second + 300*time.Millisecond)}
	if got := importedTimeout(d); got != 15*time.Minute {
		t.Errorf("importedTimeout = %s, want 15m", got)
	}
	if got := customtypes.DurationValue(importedTimeout(d)).ValueString(); got != "15m" {
		t.Errorf("imported timeout reads %q, want \"15m\" as a configuration would say it", got)
	}
	d.State = e2b.SandboxStatePaused
	if got := importedTimeout(d); got != defaultSandboxTimeout {
		t.Errorf("paused: importedTimeout = %s, want default", got)
	}
}

// An import leaves out of metadata what default_metadata adds, so the same configuration plans
// no replacement.
func TestOwnMetadata(t *testing.T) {
	all := map[string]string{"team": "a", "env": "own", "purpose": "ci"}
	got := ownMetadata(all, map[string]string{"team": "a", "env": "default"})
	if len(got) != 2 || got["env"] != "own" || got["purpose"] != "ci" {
		t.Fatalf("ownMetadata = %v, want env=own and purpose=ci", got)
	}
	if got := ownMetadata(all, nil); len(got) != 3 {
		t.Fatalf("without defaults ownMetadata = %v, want everything", got)
	}
}

func TestSandboxDomain(t *testing.T) {
	if got := sandboxDomain("byoc.example", types.StringValue("old"), "e2b.app"); got != "byoc.example" {
		t.Errorf("API domain should win, got %s", got)
	}
	if got := sandboxDomain("", types.StringValue("known.example"), "e2b.app"); got != "known.example" {
		t.Errorf("known domain should stay when the API omits it (paused), got %s", got)
	}
	if got := sandboxDomain("", types.StringNull(), "e2b.app"); got != "e2b.app" {
		t.Errorf("provider domain is the fallback, got %s", got)
	}
}

func TestImportedNetwork(t *testing.T) {
	if !importedNetwork(nil, types.Int64Null()).IsNull() {
		t.Error("no network config should be null")
	}
	f := false
	o := importedNetwork(&e2b.NetworkConfig{DenyOut: []string{"0.0.0.0/0"}, AllowPublicTraffic: &f}, types.Int64Null())
	if o.IsNull() {
		t.Fatal("network with rules should not be null")
	}
	if v := o.Attributes()["allow_public_traffic"]; !v.Equal(types.BoolValue(false)) {
		t.Errorf("allow_public_traffic = %v", v)
	}
	if v := o.Attributes()["allow_out"]; !v.IsNull() {
		t.Errorf("allow_out = %v, want null", v)
	}
}
