package e2b

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"
)

// A refresh and the plan that follows it hash the same local folder in one provider process
// (the refresh to note what it saw, the plan to show it); the memo lets the second pass reuse
// the first's hashes for files whose size, mode and modification time (in nanoseconds) are
// unchanged, as seen on the open file. A new process starts empty, so the plan made again at
// apply always reads the files.
var folderHashMemo = struct {
	sync.Mutex
	m map[folderHashKey]string
}{m: map[folderHashKey]string{}}

const folderHashMemoMax = 200_000

type folderHashKey struct {
	path     string
	size     int64
	mode     fs.FileMode
	modified int64
}

func folderHashKeyOf(dir, rel string, st fs.FileInfo) folderHashKey {
	return folderHashKey{path: filepath.Join(dir, rel), size: st.Size(), mode: st.Mode(), modified: st.ModTime().UnixNano()}
}

func memoHash(k folderHashKey) (string, bool) {
	if k.modified == 0 || time.Since(time.Unix(0, k.modified)) < 2*time.Second {
		return "", false // Written just now: a same-size edit may yet keep the time.
	}
	folderHashMemo.Lock()
	defer folderHashMemo.Unlock()
	sum, ok := folderHashMemo.m[k]
	return sum, ok
}

func rememberHash(k folderHashKey, sum string) {
	folderHashMemo.Lock()
	defer folderHashMemo.Unlock()
	if len(folderHashMemo.m) >= folderHashMemoMax {
		folderHashMemo.m = map[folderHashKey]string{}
	}
	folderHashMemo.m[k] = sum
}
