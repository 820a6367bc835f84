package e2b

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
)

// toolArgBytes bounds the names given to one rm, rmdir or chmod, far below any ARG_MAX.
const toolArgBytes = 64 << 10

// runTool runs name with args in cwd as the Envd's user, without a shell, and returns whether
// it ended with status 0 and the end of what it printed on stderr.
func (e *Envd) runTool(ctx context.Context, cwd, name string, args ...string) (ok bool, stderr string, err error) {
	stream, err := e.StartProcess(ctx, StartProcessRequest{Process: ProcessConfig{Cmd: name, Args: args, Cwd: cwd}})
	if err != nil {
		return false, "", err
	}
	defer func() { _ = stream.Close() }()
	errOut := newTailBuffer(4 << 10)
	for {
		ev, err := stream.Next()
		if err != nil {
			return false, errOut.String(), err
		}
		switch ev.Kind {
		case EventStderr:
			errOut.Write(ev.Data)
		case EventEnd:
			return ev.Exited && ev.ExitCode == 0, strings.TrimSpace(errOut.String()), nil
		}
	}
}

// batches splits names into groups whose total length stays under toolArgBytes.
func batches(names []string) [][]string {
	var out [][]string
	var cur []string
	size := 0
	for _, n := range names {
		if len(cur) > 0 && size+len(n)+1 > toolArgBytes {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, n)
		size += len(n) + 1
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Chmod sets the permission bits of files under dir (paths relative to it), one chmod per mode
// and batch of names.
func (e *Envd) Chmod(ctx context.Context, dir string, modes map[string]uint32) error {
	byMode := map[uint32][]string{}
	for rel, m := range modes {
		byMode[m] = append(byMode[m], rel)
	}
	for m, rels := range byMode {
		sort.Strings(rels)
		for _, b := range batches(rels) {
			ok, stderr, err := e.runTool(ctx, dir, "chmod", append([]string{fmt.Sprintf("%04o", m), "--"}, b...)...)
			if err != nil {
				return fmt.Errorf("chmod in %s: %w", dir, err)
			}
			if !ok {
				return fmt.Errorf("chmod %04o in %s of sandbox %q failed: %s", m, dir, e.t.SandboxID, stderr)
			}
		}
	}
	return nil
}

// RemoveFiles deletes the files under dir (paths relative to it) with `rm -f`, a batch of names
// per process: without -r, rm never removes a directory, whatever replaced a file. When a
// batch fails (a name became a directory, the template has no rm), each of its files is
// removed with RemoveFile. kept lists the paths left in place because they are not regular
// files any more; a missing file is not an error.
func (e *Envd) RemoveFiles(ctx context.Context, dir string, rels []string) (kept []string, err error) {
	rels = append([]string(nil), rels...)
	sort.Strings(rels)
	for _, b := range batches(rels) {
		if ok, _, err := e.runTool(ctx, dir, "rm", append([]string{"-f", "--"}, b...)...); err == nil && ok {
			continue
		} else if IsSandboxNotRunning(err) || ctx.Err() != nil {
			return kept, err
		}
		for _, rel := range b {
			err := e.RemoveFile(ctx, path.Join(dir, rel))
			switch {
			case IsNotAFile(err):
				kept = append(kept, rel)
			case err != nil:
				return kept, err
			}
		}
	}
	return kept, nil
}

// RemoveEmptyDirs removes the directories under dir (paths relative to it, "." for dir
// itself) that are empty, deepest first, with rmdir, which leaves any directory that still
// holds something (so a failure for one of them is no error). The error says that rmdir could
// not be run at all.
func (e *Envd) RemoveEmptyDirs(ctx context.Context, dir string, rels []string) error {
	abs := make([]string, len(rels))
	for i, r := range rels {
		abs[i] = path.Join(dir, r)
	}
	sort.Slice(abs, func(i, j int) bool {
		if di, dj := strings.Count(abs[i], "/"), strings.Count(abs[j], "/"); di != dj {
			return di > dj
		}
		return abs[i] > abs[j]
	})
	for _, b := range batches(abs) {
		if _, _, err := e.runTool(ctx, "/", "rmdir", append([]string{"--"}, b...)...); err != nil {
			return err
		}
	}
	return nil
}

// DirsOf returns every directory that holds one of the files (paths relative to a folder),
// with all the directories above it up to "." (the folder itself), parents first.
func DirsOf(rels []string) []string {
	seen := map[string]bool{".": true}
	out := []string{"."}
	for _, r := range rels {
		var chain []string
		for d := path.Dir(r); !seen[d]; d = path.Dir(d) {
			seen[d] = true
			chain = append(chain, d)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			out = append(out, chain[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return depthOf(out[i]) < depthOf(out[j]) })
	return out
}

// MissingDirs returns which of dirs (paths relative to dir, "." for dir itself, as DirsOf
// gives them) do not exist yet. A directory under a missing one is missing without asking envd.
func (e *Envd) MissingDirs(ctx context.Context, dir string, rels []string) ([]string, error) {
	rels = append([]string(nil), rels...)
	sort.Slice(rels, func(i, j int) bool { return depthOf(rels[i]) < depthOf(rels[j]) })
	missing := map[string]bool{}
	var out []string
	for _, r := range rels {
		if r != "." && missing[path.Dir(r)] {
			missing[r] = true
			out = append(out, r)
			continue
		}
		_, err := e.Stat(ctx, path.Join(dir, r))
		switch {
		case IsNotFound(err):
			missing[r] = true
			out = append(out, r)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

func depthOf(rel string) int {
	if rel == "." {
		return 0
	}
	return strings.Count(rel, "/") + 1
}
