package e2b

import (
	"context"
	"path"
	"slices"
	"sort"
	"sync"
	"time"
)

// RemoteFile is what a sandbox holds at one path of a folder.
type RemoteFile struct {
	Size     int64
	Mode     uint32 // permission bits
	Modified time.Time
	SHA256   string // hex; "" when not known
	// Unread says the file was found changed by its size alone and not read: its SHA256 is
	// unknown, and it stays changed (never read by a check) until it is written again.
	Unread bool
}

// FolderReport is what CheckFolder found.
type FolderReport struct {
	Files    map[string]RemoteFile // regular files, by path relative to the folder
	Missing  []string              // no longer there
	NotFiles []string              // replaced by a directory, a symbolic link or something else
	Hashed   []string              // downloaded to hash them
	Changed  []string              // of another size than known: changed, not read (no SHA256)
}

// folderWorkers bounds the envd calls a folder check makes at once.
const folderWorkers = 4

// CheckFolder looks at the files known under dir (paths relative to it): StatFolder, then
// the SHA256 of a file whose size and modification time are still those in known is kept, and
// the others are downloaded and hashed, a few at a time, each as a stream.
func (e *Envd) CheckFolder(ctx context.Context, dir string, known map[string]RemoteFile) (*FolderReport, error) {
	rels := make([]string, 0, len(known))
	for rel := range known {
		rels = append(rels, rel)
	}
	listed, notFiles, err := e.statFolder(ctx, dir, rels)
	if err != nil {
		return nil, err
	}
	rep := &FolderReport{Files: map[string]RemoteFile{}, NotFiles: notFiles}
	var toHash []string
	for rel, k := range known {
		en, ok := listed[rel]
		switch {
		case !ok:
			if !slices.Contains(notFiles, rel) {
				rep.Missing = append(rep.Missing, rel)
			}
		case k.SHA256 != "" && !k.Modified.IsZero() && k.Size == en.Size && k.Modified.Equal(en.Modified):
			en.SHA256 = k.SHA256
			rep.Files[rel] = en
		case k.Unread || (k.SHA256 != "" && k.Size != en.Size):
			// Its size tells it changed (or it was found changed before without being read):
			// reading it would tell nothing more, and a sandbox can make it a 1 TiB sparse file.
			// No SHA256: it equals no local file's.
			en.Unread = true
			rep.Files[rel] = en
			rep.Changed = append(rep.Changed, rel)
		default:
			rep.Files[rel] = en
			toHash = append(toHash, rel)
		}
	}
	sort.Strings(toHash)
	var mu sync.Mutex
	err = forEachLimit(ctx, toHash, func(rel string) error {
		sum, n, err := e.hashRemote(ctx, path.Join(dir, rel))
		mu.Lock()
		defer mu.Unlock()
		if IsNotFound(err) {
			delete(rep.Files, rel)
			rep.Missing = append(rep.Missing, rel)
			return nil
		}
		if err != nil {
			return err
		}
		f := rep.Files[rel]
		f.SHA256, f.Size = sum, n
		rep.Files[rel] = f
		rep.Hashed = append(rep.Hashed, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(rep.Missing)
	sort.Strings(rep.Hashed)
	sort.Strings(rep.Changed)
	return rep, nil
}

// StatFolder returns the size, mode and modification time of the regular files among rels
// (paths relative to dir), without reading them; the others are missing from the map. It lists
// each directory that holds some (one ListDir each, not the whole tree: a folder often gains
// large directories such as node_modules after an upload).
func (e *Envd) StatFolder(ctx context.Context, dir string, rels []string) (map[string]RemoteFile, error) {
	files, _, err := e.statFolder(ctx, dir, rels)
	return files, err
}

// statFolder is StatFolder that also returns which of rels are there but not regular files.
func (e *Envd) statFolder(ctx context.Context, dir string, rels []string) (map[string]RemoteFile, []string, error) {
	byDir := map[string][]string{}
	for _, rel := range rels {
		d := path.Dir(rel)
		byDir[d] = append(byDir[d], rel)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	files := map[string]RemoteFile{}
	var notFiles []string
	var mu sync.Mutex
	err := forEachLimit(ctx, dirs, func(d string) error {
		entries, err := e.ListDir(ctx, path.Join(dir, d), 1)
		if IsNotFound(err) || (err != nil && !isDir(ctx, e, path.Join(dir, d))) {
			return nil // Its files are missing.
		}
		if err != nil {
			return err
		}
		byName := make(map[string]EntryInfo, len(entries))
		for _, en := range entries {
			byName[en.Name] = en
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rel := range byDir[d] {
			en, ok := byName[path.Base(rel)]
			switch {
			case !ok:
			case en.Type != FileTypeFile || en.SymlinkTarget != "":
				notFiles = append(notFiles, rel)
			default:
				files[rel] = RemoteFile{Size: en.Size, Mode: en.Mode & 0o777, Modified: en.ModifiedTime}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(notFiles)
	return files, notFiles, nil
}

// isDir tells whether p is (still) a directory, or cannot tell: a ListDir that failed on
// something else than a directory means its files are gone, not that the check failed.
func isDir(ctx context.Context, e *Envd, p string) bool {
	en, err := e.Stat(ctx, p)
	return err != nil || en.Type == FileTypeDir
}

// hashRemote downloads a file as a stream and hashes it.
func (e *Envd) hashRemote(ctx context.Context, p string) (string, int64, error) {
	body, err := e.ReadFile(ctx, p, ReadOptions{})
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = body.Close() }()
	return HashStream(ctx, body)
}

// ListFolderFiles finds every regular file under dir, one ListDir per directory (symbolic
// links are not followed), and returns them by path relative to dir, not hashed.
func (e *Envd) ListFolderFiles(ctx context.Context, dir string) (map[string]RemoteFile, error) {
	files := map[string]RemoteFile{}
	var mu sync.Mutex
	level := []string{"."}
	for len(level) > 0 {
		var next []string
		err := forEachLimit(ctx, level, func(d string) error {
			entries, err := e.ListDir(ctx, path.Join(dir, d), 1)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, en := range entries {
				rel := path.Join(d, en.Name)
				switch {
				case en.SymlinkTarget != "":
				case en.Type == FileTypeDir:
					next = append(next, rel)
				case en.Type == FileTypeFile:
					files[rel] = RemoteFile{Size: en.Size, Mode: en.Mode & 0o777, Modified: en.ModifiedTime}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		level = next
	}
	return files, nil
}

// forEachLimit runs fn for each item, folderWorkers at a time, and returns the first error;
// after one, the items not started yet are skipped.
func forEachLimit(ctx context.Context, items []string, fn func(string) error) error {
	work := make(chan string)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(folderWorkers, len(items)) {
		wg.Go(func() {
			for it := range work {
				if err := fn(it); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
feed:
	for _, it := range items {
		select {
		case work <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		// Only the caller's context can have ended it.
		return context.Cause(ctx)
	}
	return first
}
