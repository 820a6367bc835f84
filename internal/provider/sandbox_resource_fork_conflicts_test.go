package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// fork_from conflicts with every input a fork cannot set, derived from the schema: the
// derivation gives what the hand-written list held, and an input added later joins it unasked.
func TestForkConflictsAreTheInputsAForkCannotSet(t *testing.T) {
	var resp resource.SchemaResponse
	(&sandboxResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	fork := resp.Schema.Attributes["fork_from"].(schema.StringAttribute)
	got := fork.Validators[len(fork.Validators)-1].Description(context.Background())
	want := `"[allow_internet_access,auto_pause,auto_pause_memory,auto_resume,env_vars,iam,mcp,metadata,network,secure,template,volume_mounts]"`
	if !strings.HasSuffix(got, want) {
		t.Errorf("fork_from's conflicts: %s\nwant them to end with %s", got, want)
	}
}
