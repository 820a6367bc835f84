package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// What the list resources of team objects (templates, tags, snapshots,
// volumes, secrets, webhooks) share: E2B's client reads every page, and the
// results go out one by one up to the query's limit.

// teamListResource lists the team's objects of one kind (T) with the identity
// of their resource type, for `terraform query` (Terraform 1.14 and later).
// F is the model of the query's filter: noFilter where E2B's list has none.
type teamListResource[T, F any] struct {
	resourceConfig // typeName: the resource type the results can be imported as
	description    string
	filter         map[string]schema.Attribute // the attributes of F
	what           string                      // "volumes", in the summary of an error
	fetch          func(ctx context.Context, c *e2b.Client, filter F) ([]T, error)
	display        func(T) string
	identity       func(T) map[string]string
	values         func(T) map[string]attr.Value // the resource's attributes, when the query includes it
}

// noFilter is the filter of a list resource without one.
type noFilter struct{}

var _ list.ListResourceWithConfigure = &teamListResource[e2b.Secret, noFilter]{}

// unfiltered is the fetch of a list resource whose E2B list has no filter,
// such as (*e2b.Client).ListVolumes.
func unfiltered[T any](list func(*e2b.Client, context.Context) ([]T, error)) func(context.Context, *e2b.Client, noFilter) ([]T, error) {
	return func(ctx context.Context, c *e2b.Client, _ noFilter) ([]T, error) { return list(c, ctx) }
}

func (l *teamListResource[T, F]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{MarkdownDescription: l.description, Attributes: l.filter}
}

func (l *teamListResource[T, F]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var filter F
	diags := req.Config.Get(ctx, &filter)
	client, d := l.data.Client()
	diags.Append(d...)
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list "+l.what, func() ([]T, error) { return l.fetch(ctx, client, filter) },
		func(item T) list.ListResult {
			return listResult(ctx, req, l.display(item), l.identity(item), func() map[string]attr.Value { return l.values(item) })
		})
}

// listFailed ends a stream with diagnostics from before the listing.
func listFailed(stream *list.ListResultsStream, diags diag.Diagnostics) bool {
	if !diags.HasError() {
		return false
	}
	stream.Results = list.ListResultsStreamDiagnostics(diags)
	return true
}

// streamListed sends one result per item of fetch's answer (every page),
// stopping at the query's limit; an error of fetch is the stream's one result.
func streamListed[T any](req list.ListRequest, stream *list.ListResultsStream, summary string,
	fetch func() ([]T, error), result func(T) list.ListResult) {
	stream.Results = func(push func(list.ListResult) bool) {
		items, err := fetch()
		if err != nil {
			var diags diag.Diagnostics
			addClientError(&diags, summary, err)
			push(list.ListResult{Diagnostics: diags})
			return
		}
		for i, item := range items {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			if !push(result(item)) {
				return
			}
		}
	}
}

// listResult is a result with its identity set and, when the query asks for
// the resource, the given attributes (the others stay null).
func listResult(ctx context.Context, req list.ListRequest, display string, identity map[string]string, values func() map[string]attr.Value) list.ListResult {
	r := req.NewListResult(ctx)
	r.DisplayName = display
	for name, v := range identity {
		r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root(name), v)...)
	}
	if !req.IncludeResource {
		return r
	}
	for name, v := range values() {
		r.Diagnostics.Append(r.Resource.SetAttribute(ctx, path.Root(name), v)...)
	}
	return r
}
