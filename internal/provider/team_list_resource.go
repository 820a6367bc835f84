package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// What the list resources of team objects (templates, tags, snapshots,
// volumes, secrets, webhooks) share: E2B's client reads every page, and the
// results go out one by one up to the query's limit.

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
