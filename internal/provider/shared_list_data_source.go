package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// What the list data sources (e2b_sandboxes, e2b_templates, e2b_snapshots,
// e2b_volumes, e2b_secrets, e2b_webhooks) share: E2B's client reads every
// page, and every item becomes one object of the list attribute.

// listDataSource lists every object of one kind of the team (E2B's list of
// that kind has no filter), each as one object of the list attribute.
type listDataSource[T any] struct {
	typeSuffix  string // "volumes": the type's suffix and the list attribute
	description string
	attributes  func() map[string]schema.Attribute // of one object
	fetch       func(ctx context.Context, c *e2b.Client) ([]T, error)
	attrs       func(T) map[string]attr.Value
	dataSourceConfig
}

var _ datasource.DataSourceWithConfigure = &listDataSource[e2b.Secret]{}

func (d *listDataSource[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.typeSuffix
}

func (d *listDataSource[T]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: d.description,
		Attributes: map[string]schema.Attribute{
			d.typeSuffix: computedObjectList("The "+d.typeSuffix+".", d.attributes()),
		},
	}
}

func (d *listDataSource[T]) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	items, ok := listed(d.data, &resp.Diagnostics, "Could not list "+d.typeSuffix,
		func(c *e2b.Client) ([]T, error) { return d.fetch(ctx, c) })
	if !ok {
		return
	}
	object := schema.NestedAttributeObject{Attributes: d.attributes()}.Type().(types.ObjectType)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(d.typeSuffix), objectList(object.AttrTypes, items, d.attrs))...)
}

// listed is fetch's answer, asked with the provider's client; ok is false
// when diags say why there is none. summary says what failed, unless fetch's
// error is a listReadError.
func listed[T any](data *ProviderData, diags *diag.Diagnostics, summary string, fetch func(*e2b.Client) ([]T, error)) ([]T, bool) {
	client, d := data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return nil, false
	}
	items, err := fetch(client)
	var readErr *listReadError
	if errors.As(err, &readErr) {
		summary, err = readErr.summary, readErr.err
	}
	if err != nil {
		addClientError(diags, summary, err)
		return nil, false
	}
	return items, true
}

// listReadError is an error of a read beyond the list itself (the tags of
// one template), with the summary that says which.
type listReadError struct {
	summary string
	err     error
}

func (e *listReadError) Error() string { return e.err.Error() }
func (e *listReadError) Unwrap() error { return e.err }

// objectList is items, in their order, as a list of objects of attrTypes.
func objectList[T any](attrTypes map[string]attr.Type, items []T, attrs func(T) map[string]attr.Value) types.List {
	elems := make([]attr.Value, 0, len(items))
	for _, item := range items {
		elems = append(elems, types.ObjectValueMust(attrTypes, attrs(item)))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: attrTypes}, elems)
}
