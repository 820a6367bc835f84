package builder

import (
	"os"
	"path/filepath"
)

// E2B's builds end with update-ca-certificates, so a CA certificate a step
// drops in /usr/local/share/ca-certificates is in the system bundle
// (/etc/ssl/certs) of every sandbox of the template. The emulator does the
// same, as root, where it can: with private roots, when this build's own
// steps changed that folder (a build that did not leaves the bundle its base
// had), and where the root has update-ca-certificates. Without private roots
// a sandbox's /etc is the host's, which a build must never rewrite, so the
// bundle stays the host's there.

// caDir is where Debian's update-ca-certificates takes local CAs from.
const caDir = "usr/local/share/ca-certificates"

// trustCACommand refreshes the bundle, or says why it cannot.
const trustCACommand = `if command -v update-ca-certificates >/dev/null 2>&1; then update-ca-certificates; ` +
	`else echo "update-ca-certificates is not in this image: the certificates in /usr/local/share/ca-certificates are not added to the system bundle" >&2; fi`

// trustCAs runs update-ca-certificates after the steps when they touched
// caDir, as a layer of its own cached like a step's.
func (j *buildJob) trustCAs() error {
	if !j.bl.privateRoots || !j.stepsTouched(caDir) {
		return nil
	}
	const step = "finalize"
	hash := HashKeys(j.state.hash, "update-ca-certificates")
	if !j.req.Force {
		if c, ok := j.bl.store.CachedLayer(hash); ok {
			if j.sb != nil {
				j.sb.Destroy()
				j.sb = nil
			}
			j.state = buildState{hash: hash, filesDir: c.Dir, layers: c.Layers, base: c.Base, config: c.Config.Clone()}
			return nil
		}
	}
	if err := j.materialize(); err != nil {
		return failStep(step, "error preparing update-ca-certificates: %v", err)
	}
	code, err := j.sb.Run(j.ctx, trustCACommand, "root", j.state.config, func(stderr bool, line string) {
		level := "debug"
		if stderr {
			level = "warn"
		}
		j.log(level, step, line)
	})
	if err != nil || code != 0 {
		return failStep(step, "error running update-ca-certificates: exit status %d %v", code, errString(err))
	}
	j.state.hash = hash
	if err := j.sealStep(hash); err != nil {
		return failStep(step, "error saving update-ca-certificates: %v", err)
	}
	return nil
}

// stepsTouched reports whether a layer this build's steps made (not its
// base's) holds dir: files put there, or whiteouts of files removed.
func (j *buildJob) stepsTouched(dir string) bool {
	own := len(j.state.layers) - j.baseLayers
	for _, layer := range j.state.layers[:max(own, 0)] {
		if _, err := os.Lstat(filepath.Join(layer, dir)); err == nil {
			return true
		}
	}
	return false
}
