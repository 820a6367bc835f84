package e2b

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrSandboxGoneBeforeSnapshot is returned (wrapped) by TakeLatestSnapshotInAnyState when the
// sandbox no longer exists: it expired or was killed, and nothing of it is left to snapshot.
var ErrSandboxGoneBeforeSnapshot = errors.New("the sandbox no longer exists (its timeout ran out or it was killed): " +
	"no snapshot was taken and nothing of it is left to keep")

// snapshotResumeSeconds is how long a paused sandbox is resumed for its snapshot: enough for E2B
// to checkpoint it; it is paused again or killed right after.
const snapshotResumeSeconds = 300

// pauseAgainTimeout bounds the pause that puts a sandbox back after a failed snapshot.
const pauseAgainTimeout = 2 * time.Minute

// TakeLatestSnapshotInAnyState is TakeLatestSnapshot for a sandbox that may be paused. E2B
// snapshots only running sandboxes: its snapshot endpoint looks the sandbox up among the live
// ones and answers 404 for a paused one. So a paused sandbox is resumed (which restores its files
// and, unless it was paused without memory, its processes), snapshotted and, with pauseAgain,
// paused again; without it, it is left running for the caller to kill. resumed says whether it
// was paused. A sandbox that no longer exists is ErrSandboxGoneBeforeSnapshot.
func (c *Client) TakeLatestSnapshotInAnyState(ctx context.Context, sandboxID, name string, pauseAgain bool) (snap *LatestSnapshot, resumed bool, err error) {
	detail, err := c.GetSandbox(ctx, sandboxID)
	switch {
	case IsNotFound(err):
		return nil, false, fmt.Errorf("snapshot sandbox %s as %q: %w", sandboxID, name, ErrSandboxGoneBeforeSnapshot)
	case err != nil:
		return nil, false, fmt.Errorf("snapshot sandbox %s as %q: read its state: %w", sandboxID, name, err)
	case detail.Paused():
		if _, _, err := c.ConnectSandbox(ctx, sandboxID, snapshotResumeSeconds); err != nil {
			if IsNotFound(err) {
				err = ErrSandboxGoneBeforeSnapshot
			}
			return nil, false, fmt.Errorf("snapshot sandbox %s as %q: resume the paused sandbox (E2B snapshots only "+
				"running sandboxes): %w", sandboxID, name, err)
		}
		resumed = true
	}
	snap, err = c.TakeLatestSnapshot(ctx, sandboxID, name)
	switch {
	case resumed && pauseAgain && snap != nil:
		if perr := c.PauseSandbox(ctx, sandboxID); perr != nil {
			err = errors.Join(err, fmt.Errorf("snapshot %s of sandbox %s was taken, but the sandbox, resumed for it, "+
				"could not be paused again and is running: %w", snap.SnapshotID, sandboxID, perr))
		}
	case resumed && snap == nil && !IsNotFound(err):
		// No snapshot: the sandbox goes back to the pause it was found in, whatever the caller
		// meant to do next, or its work would end with the short timeout of the resume. The
		// pause gets time of its own when the snapshot used up the caller's.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pauseAgainTimeout)
		defer cancel()
		if perr := c.PauseSandbox(pctx, sandboxID); perr != nil {
			err = errors.Join(err, fmt.Errorf("the sandbox %s, resumed for the snapshot, could not be paused again "+
				"and is running until its timeout (%d s): %w", sandboxID, snapshotResumeSeconds, perr))
		} else {
			err = fmt.Errorf("%w (the sandbox, resumed for the snapshot, was paused again with its work)", err)
		}
	}
	if IsNotFound(err) && snap == nil {
		err = fmt.Errorf("%w: %w", ErrSandboxGoneBeforeSnapshot, err)
	}
	return snap, resumed, err
}
