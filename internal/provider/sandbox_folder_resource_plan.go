package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
)

// ModifyPlan hashes the source folder, so the plan shows the files that change and the new
// digest. It reads and writes only the attributes involved.
func (r *sandboxFolderResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m sandboxFolderModel
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("source"), &m.Source)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("include"), &m.Include)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("exclude"), &m.Exclude)...)
	if resp.Diagnostics.HasError() {
		return
	}
	folder, known, diags := localFolderOf(ctx, m.Source, m.Include, m.Exclude)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !known {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sha256"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files"), types.MapUnknown(folderFileType))...)
		return
	}
	files, diags := scanFolder(ctx, folder, path.Root("source"), true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if base.Replacing(ctx, req.Plan, req.State, req.State.Raw.IsNull(), "sandbox_id", "destination", "user") {
		// No refresh precedes a create: what is sent is known after apply (see base/local_seen.go).
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sha256"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files"), types.MapUnknown(folderFileType))...)
		return
	}
	if changed := base.ChangedSinceSeen(base.GetLocalSeen(ctx, req.Private), folder.Dir, folder.Include, folder.Exclude,
		base.SeenFolderFiles(files)); len(changed) > 0 {
		resp.Diagnostics.Append(base.ChangedSincePlanDiagnostic(path.Root("source"), folder.Dir, changed))
		return
	}
	m.setFolderFiles(files)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sha256"), m.SHA256)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files"), m.Files)...)
}

// localFolderOf builds the local folder from the attributes; known is false while one of them
// is not known yet.
func localFolderOf(ctx context.Context, source types.String, include, exclude types.List) (e2b.LocalFolder, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if source.IsUnknown() || include.IsUnknown() || exclude.IsUnknown() {
		return e2b.LocalFolder{}, false, diags
	}
	f := e2b.LocalFolder{Dir: source.ValueString()}
	for _, l := range []struct {
		from types.List
		into *[]string
	}{{include, &f.Include}, {exclude, &f.Exclude}} {
		if l.from.IsNull() {
			continue
		}
		var elems []types.String
		diags.Append(l.from.ElementsAs(ctx, &elems, false)...)
		for _, e := range elems {
			if e.IsUnknown() {
				return f, false, diags
			}
			*l.into = append(*l.into, e.ValueString())
		}
	}
	return f, true, diags
}

// scanFolder lists the folder's files (hashing them when hash is set), refuses a selection
// without files and warns about what it leaves out. Diagnostics point at at.
func scanFolder(ctx context.Context, f e2b.LocalFolder, at path.Path, hash bool) ([]e2b.FolderFile, diag.Diagnostics) {
	var diags diag.Diagnostics
	list := f.List
	if hash {
		list = f.Scan
	}
	files, skipped, err := list(ctx)
	if err != nil {
		diags.AddAttributeError(at, "Cannot read source folder", fmt.Sprintf("Reading %s: %v", f.Dir, err))
		return nil, diags
	}
	warnSkipped(&diags, at, f.Dir, skipped)
	if len(files) == 0 {
		what := "holds no regular file"
		if len(f.Include) > 0 || len(f.Exclude) > 0 {
			what = "has no regular file that include and exclude select"
		}
		diags.AddAttributeError(at, "Nothing to upload",
			fmt.Sprintf("The folder %s %s, so there is nothing to upload. Check the path (relative paths start in the "+
				"directory Terraform runs in; prefer \"${path.module}/...\") and the patterns.", f.Dir, what))
	}
	return files, diags
}

// warnSkipped warns about what the folder leaves out, one warning per kind of reason.
func warnSkipped(diags *diag.Diagnostics, at path.Path, dir string, skipped []e2b.SkippedEntry) {
	byKind := map[e2b.SkipKind][]e2b.SkippedEntry{}
	for _, s := range skipped {
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	if s := byKind[e2b.SkipOutside]; len(s) > 0 {
		diags.AddAttributeWarning(at, "Links out of the source folder are not followed",
			skippedText(dir, s, "Symbolic links are followed only to files inside the folder, as in a Docker build "+
				"context; what these lead to is never read. Copy the files into the folder to upload them, or add the "+
				"links to exclude to silence this warning."))
	}
	if s := byKind[e2b.SkipWorking]; len(s) > 0 {
		diags.AddAttributeWarning(at, "Terraform's working files are not uploaded",
			skippedText(dir, s, "State files and saved plans hold the configuration's secrets in clear, and Terraform "+
				"writes these files while it runs. To send one anyway, name it in include (a pattern whose last part "+
				"has no wildcard, such as \"infra/terraform.tfstate\"); add them to exclude to silence this warning."))
	}
	if s := byKind[e2b.SkipUnusable]; len(s) > 0 {
		diags.AddAttributeWarning(at, "Some entries of the source folder are not uploaded",
			skippedText(dir, s, "Add them to exclude to silence this warning."))
	}
}

// skippedText lists the first few entries left out, with why, then the advice.
func skippedText(dir string, skipped []e2b.SkippedEntry, advice string) string {
	const shown = 10
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries of %s are left out:\n", len(skipped), dir)
	for i, s := range skipped {
		if i == shown {
			fmt.Fprintf(&b, "  … and %d more\n", len(skipped)-shown)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", s.Path, s.Reason)
	}
	b.WriteString(advice)
	return b.String()
}
