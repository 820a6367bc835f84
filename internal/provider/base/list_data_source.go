package base

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

// ListDataSource lists every object of one kind of the team (E2B's list of
// that kind has no filter), each as one object of the list attribute.
type ListDataSource[T any] struct {
	TypeSuffix  string // "volumes": the type's suffix and the list attribute
	Description string
	Attributes  func() map[string]schema.Attribute // of one object
	Fetch       func(ctx context.Context, c *e2b.Client) ([]T, error)
	Attrs       func(T) map[string]attr.Value
	DataSourceConfig
}

var _ datasource.DataSourceWithConfigure = &ListDataSource[e2b.Secret]{}

func (d *ListDataSource[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.TypeSuffix
}

func (d *ListDataSource[T]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: d.Description,
		Attributes: map[string]schema.Attribute{
			d.TypeSuffix: ComputedDataSourceList("The "+d.TypeSuffix+".", d.Attributes()),
		},
	}
}

func (d *ListDataSource[T]) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	items, ok := Listed(d.Data, &resp.Diagnostics, "Could not list "+d.TypeSuffix,
		func(c *e2b.Client) ([]T, error) { return d.Fetch(ctx, c) })
	if !ok {
		return
	}
	object := schema.NestedAttributeObject{Attributes: d.Attributes()}.Type().(types.ObjectType)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(d.TypeSuffix), ObjectList(object.AttrTypes, items, d.Attrs))...)
}

// Listed is fetch's answer, asked with the provider's client; ok is false
// when diags say why there is none. summary says what failed, unless fetch's
// error is a listReadError.
func Listed[T any](data *ProviderData, diags *diag.Diagnostics, summary string, fetch func(*e2b.Client) ([]T, error)) ([]T, bool) {
	client, d := data.Client()
	diags.Append(d...)
	if diags.HasError() {
		return nil, false
	}
	items, err := fetch(client)
	var readErr *ListReadError
	if errors.As(err, &readErr) {
		summary, err = readErr.Summary, readErr.Err
	}
	if err != nil {
		AddClientError(diags, summary, err)
		return nil, false
	}
	return items, true
}

// ListReadError is an error of a read beyond the list itself (the tags of
// one template), with the summary that says which.
type ListReadError struct {
	Summary string
	Err     error
}

func (e *ListReadError) Error() string { return e.Err.Error() }
func (e *ListReadError) Unwrap() error { return e.Err }

// ObjectList is items, in their order, as a list of objects of attrTypes.
func ObjectList[T any](attrTypes map[string]attr.Type, items []T, attrs func(T) map[string]attr.Value) types.List {
	elems := make([]attr.Value, 0, len(items))
	for _, item := range items {
		elems = append(elems, types.ObjectValueMust(attrTypes, attrs(item)))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: attrTypes}, elems)
}
