package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The user agent names the provider, framework and Terraform versions.
func TestProviderUserAgent(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[]"))
	}))
	defer api.Close()

	ctx := context.Background()
	ps, schemas := protoServerConfiguredWith(t, "1.2.3", map[string]tftypes.Value{
		"api_key": tftypes.NewValue(tftypes.String, "e2b_00"),
		"api_url": tftypes.NewValue(tftypes.String, api.URL),
	})
	dsType := schemas.DataSourceSchemas["e2b_templates"].ValueType()
	dsCfg, err := tfprotov6.NewDynamicValue(dsType, protoObject(t, dsType, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ps.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "e2b_templates", Config: &dsCfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("read: %s: %s", d.Summary, d.Detail)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) == 0 {
		t.Fatal("no request reached the API")
	}
	// A test binary records no dependency versions, so frameworkVersion is "unknown" here; a
	// provider binary records the one linked in.
	for _, want := range []string{"terraform-provider-e2b/1.2.3", "terraform-plugin-framework/" + frameworkVersion, "terraform/1.12.6"} {
		if !strings.Contains(agents[0], want) {
			t.Errorf("user agent %q lacks %q", agents[0], want)
		}
	}
}
