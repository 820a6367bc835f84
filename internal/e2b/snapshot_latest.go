package e2b

import (
	"context"
	"fmt"
	"strings"
)

// LatestSnapshot is a snapshot taken as the newest build of a named
// snapshot template.
type LatestSnapshot struct {
	// SnapshotID is "<namespace>/<name>:snap-<random>": exactly this build.
	SnapshotID string
	// Template is "<namespace>/<name>"; its default tag now points at this
	// build, so a sandbox started from the name starts from this snapshot.
	Template string
	// BuildID is the build E2B made for the snapshot.
	BuildID string
	// Builds is how many snapshots the name holds now, this one included.
	Builds int
}

// TakeLatestSnapshot snapshots a running sandbox (it keeps running) as a
// new build of the snapshot template called name, which the first snapshot
// of the name creates, and points the template's default tag at it. A
// sandbox started from the name (template = name) then starts from the
// newest snapshot, and every earlier one stays reachable under its own tag.
//
// It never takes two snapshots: the create is CreateSnapshot's (a lost
// answer is settled by listing the sandbox's snapshots for the create's own
// tag), and pointing the tag again has the same effect. When the snapshot
// was taken but the tag could not be moved, the error says so and the
// result still names the snapshot.
func (c *Client) TakeLatestSnapshot(ctx context.Context, sandboxID, name string) (*LatestSnapshot, error) {
	if name == "" {
		return nil, fmt.Errorf("snapshot sandbox %q: a name is required", sandboxID)
	}
	info, err := c.CreateSnapshot(ctx, sandboxID, name)
	if err != nil {
		return nil, err
	}
	out := &LatestSnapshot{SnapshotID: info.SnapshotID, Template: info.Template()}
	out.BuildID, _, err = c.AssignTemplateTags(ctx, info.SnapshotID, []string{defaultTag})
	if err != nil {
		return out, fmt.Errorf("snapshot %s of sandbox %s was taken, but the name %q still starts the previous one "+
			"(its default tag could not be moved): %w", info.SnapshotID, sandboxID, name, err)
	}
	// The count is for the report only: a failed read leaves it 0. It counts the
	// template's tags (each snapshot has one of its own): E2B lists a snapshot
	// template once, whatever number of snapshots it holds.
	if tags, terr := c.templateTags(ctx, "count snapshots of "+out.Template, out.Template); terr == nil {
		for _, tag := range tags {
			if strings.HasPrefix(tag, snapshotTagPrefix) {
				out.Builds++
			}
		}
	}
	return out, nil
}
