package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// descResumeFromDisk says what resuming without memory does, for e2b_sandbox's resume_memory
// and the resume action's memory.
const descResumeFromDisk = "`false` resumes from the disk only (a cold boot): the sandbox's processes and open connections " +
	"are gone, its files stay, and writes not flushed before the pause may be lost; the memory snapshot is ignored, not " +
	"deleted. It changes nothing for a sandbox paused without memory. E2B refuses `false` for teams without the " +
	"capability, never falling back to a memory restore."

// fromDisk reports whether a memory attribute asks for a resume from disk only (null is E2B's
// default, a resume with memory).
func fromDisk(memory types.Bool) bool { return memory.Equal(types.BoolValue(false)) }

// addResumeError adds the error of a resume, tied to the memory attribute at p when E2B refused
// a resume from disk only.
func addResumeError(diags *diag.Diagnostics, p path.Path, summary string, err error, fallback diag.Diagnostic) {
	if !e2b.IsDiskOnlyResumeOff(err) {
		diags.Append(fallback)
		return
	}
	diags.AddAttributeError(p, summary, fmt.Sprintf("E2B does not let this team resume a sandbox from its disk only "+
		"(%s = false). Remove %s = false, or set it to true, to resume with the sandbox's memory.\n\n%s", p, p, err))
}
