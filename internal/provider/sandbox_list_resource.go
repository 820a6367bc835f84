package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

var (
	_ list.ListResourceWithConfigure = &sandboxListResource{}
)

// NewSandboxListResource returns the list resource for e2b_sandbox
// (`terraform query`, Terraform 1.14 and later).
func NewSandboxListResource() list.ListResource {
	return &sandboxListResource{base.ResourceConfig{TypeName: "_sandbox"}}
}

// sandboxListResource lists the team's sandboxes with the identity of
// e2b_sandbox, so they can be imported.
type sandboxListResource struct {
	base.ResourceConfig
}

// sandboxListConfigModel is the filter, as on the e2b_sandboxes data source.
type sandboxListConfigModel struct {
	sandboxFilterModel
}

func (l *sandboxListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the team's sandboxes (running and paused) for `terraform query`, each with the " +
			"identity of `e2b_sandbox` (`sandbox_id`), so they can be imported into configuration. With " +
			"`include_resource`, each sandbox is read as an import reads it (one more request per sandbox), so a " +
			"configuration generated from it plans only the import: `timeout` is a running sandbox's `end_at - started_at` " +
			"(E2B does not report the timeout; a paused sandbox gets the default), and what E2B never returns (`env_vars`, " +
			"`iam`, `mcp`, `auto_pause_memory`, the proxy password) is left out. Rule `headers` are sensitive and come out as " +
			"`null`: write them in before planning.",
		Attributes: base.ListConfigAttributes(sandboxFilterAttributes()),
	}
}

func (l *sandboxListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg sandboxListConfigModel
	diags := req.Config.Get(ctx, &cfg)
	params, d := cfg.params(ctx)
	diags.Append(d...)
	client, d := l.Data.Client()
	diags.Append(d...)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}

	stream.Results = func(push func(list.ListResult) bool) {
		var sent int64
		token := ""
		for {
			page, next, err := client.ListSandboxesPage(ctx, params, token)
			if err != nil {
				var errDiags diag.Diagnostics
				base.AddClientError(&errDiags, "Could not list sandboxes", err)
				push(list.ListResult{Diagnostics: errDiags})
				return
			}
			for _, s := range page {
				if req.Limit > 0 && sent >= req.Limit {
					return
				}
				if !push(l.result(ctx, client, req, s)) {
					return
				}
				sent++
			}
			if next == "" {
				return
			}
			token = next
		}
	}
}

// result builds one list entry. With the resource, each sandbox is read as an import reads it
// (GET /sandboxes/{id}: the list answer has no network, lifecycle or secure), so a configuration
// generated from it plans only the import. What E2B never returns (env_vars, iam, mcp,
// auto_pause_memory, tokens) stays null.
func (l *sandboxListResource) result(ctx context.Context, client *e2b.Client, req list.ListRequest, s e2b.ListedSandbox) list.ListResult {
	r := req.NewListResult(ctx)
	template := s.TemplateID
	if s.Alias != "" {
		template = s.Alias
	}
	r.DisplayName = fmt.Sprintf("%s (%s, %s)", s.SandboxID, template, s.State)
	r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("sandbox_id"), s.SandboxID)...)
	if !req.IncludeResource {
		return r
	}
	values := convert.AttrValues(reportedSandbox(s))
	values["template"] = types.StringValue(template)
	values["paused"] = types.BoolValue(s.State == e2b.SandboxStatePaused)
	values["metadata_all"] = convert.StringMapValue(s.Metadata)
	if md := ownMetadata(s.Metadata, l.Data.DefaultMetadata); len(md) > 0 {
		values["metadata"] = convert.StringMapValue(md)
	}
	if d, err := client.GetSandbox(ctx, s.SandboxID); err != nil {
		r.Diagnostics.AddWarning("Sandbox listed but not read", fmt.Sprintf("Sandbox %s was listed, but reading its "+
			"settings failed, so its entry lacks them (timeout, secure, lifecycle, network, volume_mounts): %v", s.SandboxID, err))
	} else {
		for name, v := range importedValues(d, l.Data.DefaultMetadata) {
			values[name] = v
		}
	}
	for name, v := range values {
		r.Diagnostics.Append(r.Resource.SetAttribute(ctx, path.Root(name), v)...)
	}
	return r
}

// importedValues are the attributes an import of this sandbox sets, by name.
func importedValues(d *e2b.SandboxDetail, defaultMetadata map[string]string) map[string]attr.Value {
	var m sandboxResourceModel
	m.applyDetail(d, "")
	m.applyImported(d, defaultMetadata)
	return map[string]attr.Value{
		"template": m.Template, "timeout": m.Timeout, "secure": m.Secure, "auto_pause": m.AutoPause,
		"auto_resume": m.AutoResume, "allow_internet_access": m.AllowInternetAccess, "network": m.Network,
		"metadata": m.Metadata, "metadata_all": m.MetadataAll, "volume_mounts": m.VolumeMounts,
		"store_access_tokens": types.BoolValue(true), "paused": m.Paused, "state": m.State,
	}
}
