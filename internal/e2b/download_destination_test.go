package e2b

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// if_exists: fail (the default) refuses a folder that is not empty and a file that is there,
// writing nothing; merge keeps the other files; replace empties the folder first. A destination
// that is a file, or lies under one, is a clear error rather than a raw mkdir error.
func TestDownloadIfExists(t *testing.T) {
	e, envd := downloadEnv(t)
	dest := t.TempDir()
	if err := os.WriteFile(filepath.Join(dest, "mine.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("fail into a folder that is not empty: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "summary.txt")); err == nil {
		t.Fatal("a refused download wrote summary.txt")
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{IfExists: DownloadIfExistsMerge}); err != nil {
		t.Fatal(err)
	}
	if readLocal(t, filepath.Join(dest, "mine.txt")) != "keep" || readLocal(t, filepath.Join(dest, "summary.txt")) != "pass\n" {
		t.Fatal("merge did not keep mine.txt next to the sandbox's files")
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports/summary.txt", dest, DownloadOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("fail onto an existing file: %v", err)
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports", dest, DownloadOptions{IfExists: DownloadIfExistsReplace}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "mine.txt")); err == nil {
		t.Fatal("replace kept mine.txt")
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{file, filepath.Join(file, "sub")} {
		_, err := envd.Download(e.ctx, "/home/user/reports", d, DownloadOptions{})
		if err == nil || !strings.Contains(err.Error(), "is a file") || strings.Contains(err.Error(), "mkdir") {
			t.Errorf("destination %s: %v", d, err)
		}
	}
}

// The temporaries a killed download left are removed by the next download into the folder:
// only files of its own name pattern, only when unchanged for an hour.
func TestDownloadRemovesStaleTemporaries(t *testing.T) {
	e, envd := downloadEnv(t)
	dest := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	names := map[string]bool{ // name -> removed
		downloadTempPrefix + "0123456789ab": true,
		downloadTempPrefix + "a1b2c3d4e5f6": false, // fresh: maybe a live download's
		downloadTempPrefix + "notmine":      false,
		"report.e2b-download-0123456789ab":  false,
	}
	for n := range names {
		p := filepath.Join(dest, n)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if n != downloadTempPrefix+"a1b2c3d4e5f6" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := envd.Download(e.ctx, "/home/user/reports/summary.txt", dest, DownloadOptions{IfExists: DownloadIfExistsMerge}); err != nil {
		t.Fatal(err)
	}
	for n, removed := range names {
		if _, err := os.Stat(filepath.Join(dest, n)); (err != nil) != removed {
			t.Errorf("%s: removed %v, want %v", n, err != nil, removed)
		}
	}
}
