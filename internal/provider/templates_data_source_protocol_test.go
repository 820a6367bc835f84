package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// A template whose tags cannot be read fails e2b_templates naming that
// template, not the list.
func TestTemplatesDataSource_tagsErrorNamesTemplate(t *testing.T) {
	srv := newTestEmulator(t)
	target, err := url.Parse(srv.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	emulatorAPI := httputil.NewSingleHostReverseProxy(target)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/templates"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"templateID":"tpl1","buildID":"b1","buildStatus":"ready","names":["team/one"],"aliases":[],` +
				`"createdAt":"2024-01-01T00:00:00Z","updatedAt":"2024-01-01T00:00:00Z"}]`))
		case strings.HasSuffix(r.URL.Path, "/tags"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":400,"message":"tags unavailable"}`))
		default:
			emulatorAPI.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(api.Close)
	p := newProtoProviderAt(t, srv, api.URL)
	typ := p.schema.DataSourceSchemas["e2b_templates"].ValueType()
	resp, err := p.server.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{
		TypeName: "e2b_templates", Config: p.dynamicValue(typ, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 {
		t.Fatalf("want one diagnostic, got %d: %+v", len(resp.Diagnostics), resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	if d.Summary != "Could not list the tags of template tpl1" || !strings.Contains(d.Detail, "tags unavailable") {
		t.Fatalf("diagnostic %q: %q; want the tags of template tpl1 named, with E2B's message", d.Summary, d.Detail)
	}
}
