package buildcontext

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// WriteCopyArchive writes the archive E2B's SDK uploads for a COPY step: a
// gzipped tar of every entry the step hashes, in the same order, paths
// relative to the context, one entry per path (folders are not recursed,
// their content follows as entries of its own). Links are stored as links
// unless resolveSymlinks is set. Owners are left out (E2B sets them from the
// step's user). Modes are the ones HashCopy hashes. Content is streamed.
func (c Context) WriteCopyArchive(w io.Writer, src string, resolveSymlinks bool) error {
	es, skipped, err := c.copyEntries(src, resolveSymlinks)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return noFilesError(c.Dir, src, skipped)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	buf := make([]byte, 64<<10)
	for _, e := range es {
		if err := writeArchiveEntry(tw, e, resolveSymlinks, c.NormalizeModes, buf); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeArchiveEntry(tw *tar.Writer, e *globEntry, resolveSymlinks, normalize bool, buf []byte) error {
	fi, err := os.Lstat(e.full)
	if err != nil {
		return err
	}
	if target := followed(e, fi, resolveSymlinks); target != nil {
		fi = target
	}
	name := e.rel
	if name == "" {
		name = "."
	}
	mode := entryMode(fi.Mode(), normalize)
	h := &tar.Header{
		Name:    name,
		Mode:    int64(mode.Perm()) | int64(unixMode(mode)&0o7000),
		ModTime: fi.ModTime().Truncate(1e9),
		Format:  tar.FormatPAX,
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		h.Typeflag = tar.TypeSymlink
		if h.Linkname, err = os.Readlink(e.full); err != nil {
			return err
		}
	case fi.IsDir():
		h.Typeflag = tar.TypeDir
		h.Name += "/"
	case fi.Mode().IsRegular():
		h.Typeflag = tar.TypeReg
		h.Size = fi.Size()
	default:
		return nil // sockets, devices and pipes cannot be sent
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("archive %s: %w", e.rel, err)
	}
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	f, err := os.Open(e.full)
	if err != nil {
		return err
	}
	defer f.Close()
	// Exactly the size in the header: a file that grows meanwhile must not
	// corrupt the archive.
	n, err := io.CopyBuffer(tw, io.LimitReader(f, h.Size), buf)
	if err != nil {
		return fmt.Errorf("archive %s: %w", e.rel, err)
	}
	if n != h.Size {
		return fmt.Errorf("archive %s: the file shrank while it was read (%d of %d bytes)", e.rel, n, h.Size)
	}
	return nil
}
