package provider

import (
	"context"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// listSandboxes calls the ListResource RPC and returns identities and resources by sandbox ID.
func (p *protoProvider) listSandboxes(vals map[string]tftypes.Value, include bool, limit int64) (map[string]map[string]tftypes.Value, []string) {
	p.t.Helper()
	ls, ok := p.server.(tfprotov6.ListResourceServer)
	if !ok {
		p.t.Fatal("provider server does not serve list resources")
	}
	cfg := p.dynamicValue(p.schema.ListResourceSchemas["e2b_sandbox"].ValueType(), vals)
	stream, err := ls.ListResource(context.Background(), &tfprotov6.ListResourceRequest{
		TypeName: "e2b_sandbox", Config: cfg, IncludeResource: include, Limit: limit})
	if err != nil {
		p.t.Fatal(err)
	}
	identityType := p.resourceIdentityType("e2b_sandbox")
	resourceType := p.schema.ResourceSchemas["e2b_sandbox"].ValueType()
	found := map[string]map[string]tftypes.Value{}
	var names []string
	for r := range stream.Results {
		p.noErrors("ListResource", r.Diagnostics)
		var id string
		if err := p.attributes(r.Identity.IdentityData, identityType)["sandbox_id"].As(&id); err != nil {
			p.t.Fatal(err)
		}
		attrs := map[string]tftypes.Value{}
		if r.Resource != nil {
			attrs = p.attributes(r.Resource, resourceType)
		}
		found[id] = attrs
		names = append(names, r.DisplayName)
	}
	return found, names
}

func (p *protoProvider) resourceIdentityType(typeName string) tftypes.Type {
	p.t.Helper()
	resp, err := p.server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		p.t.Fatal(err)
	}
	s, ok := resp.IdentitySchemas[typeName]
	if !ok {
		p.t.Fatalf("%s has no identity schema", typeName)
	}
	return s.ValueType()
}

func TestSandboxListResourceProtocol(t *testing.T) {
	srv := newTestEmulator(t)
	p := newProtoProvider(t, srv)
	client := testAccClient(t, srv)
	ctx := context.Background()
	var team []string
	for _, md := range []map[string]string{{"team": "a"}, {"team": "a"}, {"team": "b"}} {
		sb, err := client.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 600, Metadata: md})
		if err != nil {
			t.Fatal(err)
		}
		if md["team"] == "a" {
			team = append(team, sb.SandboxID)
		}
	}
	if err := client.PauseSandbox(ctx, team[1]); err != nil {
		t.Fatal(err)
	}

	teamA := map[string]tftypes.Value{"metadata": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String},
		map[string]tftypes.Value{"team": str("a")})}
	found, names := p.listSandboxes(teamA, true, 0)
	var ids []string
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	sort.Strings(team)
	if len(ids) != 2 || ids[0] != team[0] || ids[1] != team[1] {
		t.Fatalf("listed %v (%v), want team a's sandboxes %v", ids, names, team)
	}
	for id, attrs := range found {
		var gotID, state string
		if err := attrs["id"].As(&gotID); err != nil || gotID != id {
			t.Errorf("resource id = %q (%v), want %q", gotID, err, id)
		}
		if err := attrs["state"].As(&state); err != nil || state == "" {
			t.Errorf("resource state missing for %s: %v", id, err)
		}
	}

	running := map[string]tftypes.Value{
		"metadata": teamA["metadata"],
		"states":   tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("running")}),
	}
	found, _ = p.listSandboxes(running, false, 0)
	if len(found) != 1 {
		t.Fatalf("running team a sandboxes: %v, want 1", found)
	}
	for _, attrs := range found {
		if len(attrs) != 0 {
			t.Fatalf("resource data sent without include_resource: %v", attrs)
		}
	}

	found, _ = p.listSandboxes(nil, false, 2)
	if len(found) != 2 {
		t.Fatalf("limit 2 returned %d results", len(found))
	}
}
