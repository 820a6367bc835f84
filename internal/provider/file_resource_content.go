package provider

import (
	"context"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// What e2b_sandbox_file and e2b_volume_file share: the configured bytes of one
// regular file, what a refresh learns by hashing the file where it lives, and
// the refusal to manage anything but a regular file.

// importContentMax is the largest text file whose content an import fills in.
const importContentMax = 1 << 20

// fileContentModel is the part of both file models that gives and describes the bytes.
type fileContentModel struct {
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	Source        types.String `tfsdk:"source"`
	SHA256        types.String `tfsdk:"sha256"`
	Size          types.Int64  `tfsdk:"size"`
}

// imported tells a state just imported: it has no content yet.
func (m *fileContentModel) imported() bool {
	return m.Content.IsNull() && m.ContentBase64.IsNull() && m.Source.IsNull()
}

// applyHashed records what a refresh hashed, and the text an import fills in when there is one.
func (m *fileContentModel) applyHashed(stamp remoteFileStamp, text *string) {
	m.SHA256 = types.StringValue(stamp.SHA256)
	m.Size = types.Int64Value(stamp.Size)
	if text != nil {
		m.Content, m.ContentBase64 = importedContent(*text)
	}
}

// fileContentAttributes are the schema attributes of fileContentModel; holder is where the file
// lives ("sandbox", "volume").
func fileContentAttributes(holder string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"content": schema.StringAttribute{
			MarkdownDescription: "Text content of the file (UTF-8). Conflicts with `content_base64` and `source`.",
			Optional:            true,
		},
		"content_base64": schema.StringAttribute{
			MarkdownDescription: "Binary content of the file, base64-encoded (e.g. `filebase64(...)`). " +
				"Conflicts with `content` and `source`.",
			Optional:   true,
			Validators: []validator.String{validators.Base64()},
		},
		"source": schema.StringAttribute{
			MarkdownDescription: "Path of a local regular file to upload (symlinks are followed; directories, devices " +
				"and pipes are refused at plan time), relative to the directory Terraform runs in " +
				"(prefer `\"${path.module}/...\"`). The file is streamed, never held in memory, and hashed at plan " +
				"time, so editing it plans a rewrite. Conflicts with `content` and `content_base64`. " + base.DescLocalEdit,
			Optional:   true,
			Validators: []validator.String{sourceFileValidator()},
		},
		"sha256": schema.StringAttribute{
			MarkdownDescription: "SHA-256 (hex) of the file's content. Known at plan time from the configuration (for a `source`, when " +
				"updating; a new file's is known after apply); " +
				"after a refresh it is the hash of what the " + holder + " holds, so a difference means drift. A file whose " +
				"size already differs is not read to hash it (it may be huge): its `sha256` is then empty until the " +
				"next apply writes it again.",
			Computed: true,
		},
		"size": schema.Int64Attribute{
			MarkdownDescription: "Size of the file in bytes.",
			Computed:            true,
		},
	}
}

// fileContentPlan is how both file resources check and plan their bytes: exactly one source
// (ConfigValidators), and sha256 and size planned from it (ModifyPlan). placedBy are the
// attributes whose change makes the file a new one (see base.Replacing).
type fileContentPlan struct {
	placedBy []string
}

// ConfigValidators require exactly one source of the file's bytes.
func (fileContentPlan) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(
		path.MatchRoot("content"), path.MatchRoot("content_base64"), path.MatchRoot("source"))}
}

// ModifyPlan plans sha256 and size from the configured bytes (hashing a local source file), so
// content changes and edited source files show in the plan, reading and writing only the
// attributes involved.
func (p fileContentPlan) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var content, contentBase64, source types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("content"), &content)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("content_base64"), &contentBase64)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("source"), &source)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sum, size := types.StringUnknown(), types.Int64Unknown()
	if c := contentFrom(content, contentBase64, source); !c.unknown && c.attrName != "" {
		s, n, err := c.digest(ctx)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(c.attrName), "Cannot read file content", err.Error())
			return
		}
		creating := base.Replacing(ctx, req.Plan, req.State, req.State.Raw.IsNull(), p.placedBy...)
		var diags diag.Diagnostics
		sum, size, diags = planFileSum(ctx, c, s, n, creating, req.Private)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sha256"), sum)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("size"), size)...)
}

// sizeDrift is the stamp of a file whose size differs from the one last written or hashed
// (stamp), or that was already found changed without being read: it differs from the
// configuration whatever it holds, and reading it to hash it (a sandbox can make it a 1 TiB
// sparse file) would tell nothing more. Its SHA256 is empty, which no configuration's hash
// equals, so the plan writes the file again. ok is false when only a hash can tell.
func sizeDrift(stamp *remoteFileStamp, size int64, modified time.Time) (remoteFileStamp, bool) {
	if stamp == nil || (stamp.Size == size && stamp.SHA256 != "") {
		return remoteFileStamp{}, false
	}
	return remoteFileStamp{Size: size, Modified: modified}, true
}

// hashFile hashes body, a file of size bytes last modified at modified, as a stream and closes
// it; summary heads the error of a failed read. With wantText, a text file of at most
// importContentMax bytes also comes back as text (else text is nil).
func hashFile(ctx context.Context, body io.ReadCloser, size int64, modified time.Time, wantText bool,
	summary string) (stamp remoteFileStamp, text *string, diags diag.Diagnostics) {
	defer func() { _ = body.Close() }()
	var src io.Reader = body
	var head *prefixBuffer
	if wantText && size <= importContentMax {
		head = &prefixBuffer{max: importContentMax}
		src = io.TeeReader(body, head)
	}
	sum, n, err := e2b.HashStream(ctx, src)
	if err != nil {
		diags.AddError(summary, err.Error())
		return remoteFileStamp{}, nil, diags
	}
	if head != nil && !head.over && utf8.Valid(head.b) {
		s := string(head.b)
		text = &s
	}
	return remoteFileStamp{Size: n, Modified: modified, SHA256: sum}, text, diags
}

// prefixBuffer keeps the first max bytes written to it and notes when there were more.
type prefixBuffer struct {
	b    []byte
	max  int
	over bool
}

func (p *prefixBuffer) Write(b []byte) (int, error) {
	if room := p.max - len(p.b); len(b) > room {
		p.over = true
		p.b = append(p.b, b[:room]...)
	} else {
		p.b = append(p.b, b...)
	}
	return len(b), nil
}

// notARegularFile refuses to manage what is not a regular file: on import, and on refresh when
// something replaced the file (most often with a directory). in says where the file is (`sandbox
// "i1a2b3c4"`), what what it is now, typeName which resource manages files there, and moveAway
// how to move it out of the way.
func notARegularFile(target, in, what, typeName, moveAway string, imported bool) diag.Diagnostic {
	if imported {
		return diag.NewAttributeErrorDiagnostic(path.Root("path"), "Cannot import "+target,
			fmt.Sprintf("%s in %s is %s; %s manages regular files only. "+
				"Import the files inside it one by one.", target, in, what, typeName))
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("path"), target+" is no longer a regular file",
		fmt.Sprintf("%s in %s is %s now, not the file this resource wrote. The provider never writes over "+
			"or deletes it. Move it away %s so the next apply writes the file again, or stop managing the "+
			"file (terraform state rm, or a removed block).", target, in, what, moveAway))
}
