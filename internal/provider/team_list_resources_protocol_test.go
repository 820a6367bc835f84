package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// listIdentities calls the ListResource RPC of typeName and returns each
// result's identity, as strings by attribute.
func (p *protoProvider) listIdentities(typeName string, vals map[string]tftypes.Value, limit int64) []map[string]string {
	p.t.Helper()
	ls := p.server.(tfprotov6.ListResourceServer)
	cfg := p.dynamicValue(p.schema.ListResourceSchemas[typeName].ValueType(), vals)
	stream, err := ls.ListResource(context.Background(), &tfprotov6.ListResourceRequest{TypeName: typeName, Config: cfg, Limit: limit})
	if err != nil {
		p.t.Fatal(err)
	}
	identityType := p.resourceIdentityType(typeName)
	var out []map[string]string
	for r := range stream.Results {
		p.noErrors("ListResource "+typeName, r.Diagnostics)
		got := map[string]string{}
		for k, v := range p.attributes(r.Identity.IdentityData, identityType) {
			var s string
			if err := v.As(&s); err != nil {
				p.t.Fatal(err)
			}
			got[k] = s
		}
		out = append(out, got)
	}
	return out
}

// The secrets list reads every page (E2B pages secrets by 100) and stops at
// the query's limit; the snapshot list passes E2B's filters on.
func TestTeamListResourcesPagingAndFilters(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	client := testAccClient(t, srv)
	ctx := context.Background()
	const secrets = 105
	for i := range secrets {
		if _, err := client.CreateSecret(ctx, fmt.Sprintf("paged-%03d", i), "v", nil); err != nil {
			t.Fatal(err)
		}
	}
	all := p.listIdentities("e2b_secret", nil, 0)
	seen := map[string]bool{}
	for _, id := range all {
		seen[id["secret_id"]] = true
	}
	if len(all) != secrets || len(seen) != secrets {
		t.Fatalf("listed %d secrets (%d distinct), want all %d across pages", len(all), len(seen), secrets)
	}
	if got := p.listIdentities("e2b_secret", nil, 7); len(got) != 7 {
		t.Fatalf("limit 7 gave %d secrets", len(got))
	}

	sb, err := client.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"filter-a", "filter-b"} {
		if _, err := client.CreateSnapshot(ctx, sb.SandboxID, name); err != nil {
			t.Fatal(err)
		}
	}
	got := p.listIdentities("e2b_snapshot", map[string]tftypes.Value{"name": str("filter-b"), "sandbox_id": str(sb.SandboxID)}, 0)
	if len(got) != 1 || got[0]["snapshot_id"] == "" {
		t.Fatalf("name filter: %v, want the one snapshot filter-b", got)
	}
	if got := p.listIdentities("e2b_snapshot", map[string]tftypes.Value{"sandbox_id": str(sb.SandboxID)}, 0); len(got) != 2 {
		t.Fatalf("sandbox filter: %v, want both snapshots", got)
	}
}
