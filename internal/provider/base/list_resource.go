package base

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

// TeamListResource lists the team's objects of one kind (T) with the identity
// of their resource type, for `terraform query` (Terraform 1.14 and later).
// F is the model of the query's filter: noFilter where E2B's list has none.
type TeamListResource[T, F any] struct {
	ResourceConfig // typeName: the resource type the results can be imported as
	Description    string
	Filter         map[string]schema.Attribute // the attributes of F
	What           string                      // "volumes", in the summary of an error
	Fetch          func(ctx context.Context, c *e2b.Client, filter F) ([]T, error)
	Display        func(T) string
	Identity       func(T) map[string]string
	Values         func(T) map[string]attr.Value // the resource's attributes, when the query includes it
}

// NoFilter is the filter of a list resource without one.
type NoFilter struct{}

var _ list.ListResourceWithConfigure = &TeamListResource[e2b.Secret, NoFilter]{}

// Unfiltered is the fetch of a list resource whose E2B list has no filter,
// such as (*e2b.Client).ListVolumes.
func Unfiltered[T any](list func(*e2b.Client, context.Context) ([]T, error)) func(context.Context, *e2b.Client, NoFilter) ([]T, error) {
	return func(ctx context.Context, c *e2b.Client, _ NoFilter) ([]T, error) { return list(c, ctx) }
}

func (l *TeamListResource[T, F]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{MarkdownDescription: l.Description, Attributes: l.Filter}
}

func (l *TeamListResource[T, F]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var filter F
	diags := req.Config.Get(ctx, &filter)
	client, d := l.Data.Client()
	diags.Append(d...)
	if listFailed(stream, diags) {
		return
	}
	streamListed(req, stream, "Could not list "+l.What, func() ([]T, error) { return l.Fetch(ctx, client, filter) },
		func(item T) list.ListResult {
			return listResult(ctx, req, l.Display(item), l.Identity(item), func() map[string]attr.Value { return l.Values(item) })
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
			AddClientError(&diags, summary, err)
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
