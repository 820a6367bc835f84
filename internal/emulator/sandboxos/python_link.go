package sandboxos

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// pythonDirs are where a host keeps python3; the link goes beside it.
var pythonDirs = []string{"usr/bin", "usr/local/bin"}

// writePythonLink gives the host base root E2B's `python`: its base template has Python 3 as both
// python and python3, while many hosts (Debian, Ubuntu) have python3 only. Where the host has
// python3 without python, the skeleton (which lies over the host's /usr) gets python -> python3;
// a host without python3 gets nothing, and neither command exists in its sandboxes.
func writePythonLink(skeleton string) error {
	for _, d := range pythonDirs {
		link := filepath.Join(skeleton, d, "python")
		_, errPy3 := os.Stat(filepath.Join("/", d, "python3"))
		_, errPy := os.Lstat(filepath.Join("/", d, "python"))
		if errPy3 != nil || errPy == nil {
			// No python3 here, or the host's own python: a link an older skeleton holds must not hide it.
			if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		_ = os.Remove(link)
		if err := os.Symlink("python3", link); err != nil {
			return err
		}
	}
	return nil
}

// hostHasPython3 reports whether the host has the python3 the base template's python comes from.
func hostHasPython3() bool {
	for _, d := range pythonDirs {
		if _, err := os.Stat(filepath.Join("/", d, "python3")); err == nil {
			return true
		}
	}
	return false
}
