package e2b

import (
	"fmt"
	"path"
	"regexp"
)

// Resource rules of E2B's API for a template build (POST /v3/templates), from
// e2b-dev/infra packages/api/internal/team/limits.go (LimitResources) and
// packages/api/internal/constants/templates.go: 1 to 32 vCPUs, 1 or an even
// number; at least 128 MiB of memory, an even number. The team's own limits
// (its tier's vCPUs and memory) come on top and only E2B knows them.
const (
	MinTemplateCPU    = 1
	MaxTemplateCPU    = 32
	MinTemplateMemory = 128
)

// ValidateTemplateCPU applies E2B's rule for cpuCount.
func ValidateTemplateCPU(n int32) error {
	switch {
	case n < MinTemplateCPU || n > MaxTemplateCPU:
		return fmt.Errorf("must be between %d and %d (E2B's range; the team's tier may allow fewer)", MinTemplateCPU, MaxTemplateCPU)
	case n != 1 && n%2 != 0:
		return fmt.Errorf("must be 1 or an even number (E2B's rule)")
	}
	return nil
}

// ValidateTemplateMemory applies E2B's rule for memoryMB.
func ValidateTemplateMemory(mb int32) error {
	switch {
	case mb < MinTemplateMemory:
		return fmt.Errorf("must be at least %d MiB (E2B's rule)", MinTemplateMemory)
	case mb%2 != 0:
		return fmt.Errorf("must be an even number of MiB (E2B's rule)")
	}
	return nil
}

// imageRefPattern is the grammar of an image reference as Docker and OCI
// registries define it (github.com/distribution/reference):
// [host[:port]/]path[:tag][@algorithm:hex], the path in lower case.
var imageRefPattern = func() *regexp.Regexp {
	const (
		domainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
		host            = `(?:` + domainComponent + `(?:\.` + domainComponent + `)*|\[[a-fA-F0-9:]+\])`
		domain          = host + `(?::[0-9]+)?`
		pathComponent   = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
		name            = `(?:` + domain + `/)?` + pathComponent + `(?:/` + pathComponent + `)*`
		tag             = `[\w][\w.-]{0,127}`
		digest          = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
	)
	return regexp.MustCompile(`^` + name + `(?::` + tag + `)?(?:@` + digest + `)?$`)
}()

// maxImageNameLen is the longest repository name (before tag and digest)
// registries take; imageSuffixPattern finds the tag and digest.
const maxImageNameLen = 255

var imageSuffixPattern = regexp.MustCompile(`[:@][^/]*$`)

// ValidateImageRef checks the form of an image reference such as
// "python:3.12" or "ghcr.io/acme/app:1.2". E2B's API takes any string; one
// that is no reference fails only at the build's base step, minutes later.
func ValidateImageRef(ref string) error {
	if !imageRefPattern.MatchString(ref) {
		return fmt.Errorf("must be an image reference such as \"python:3.12\", \"ghcr.io/acme/app:1.2\" or " +
			"\"name@sha256:<hex>\": [registry/]path[:tag][@digest], the path in lower case")
	}
	name := ref
	if i := imageSuffixPattern.FindStringIndex(ref); i != nil {
		name = ref[:i[0]]
	}
	if len(name) > maxImageNameLen {
		return fmt.Errorf("must have a repository name of at most %d characters", maxImageNameLen)
	}
	return nil
}

// ValidateWorkdir refuses a relative working directory. E2B's builder makes
// and keeps the path as written (mkdir -p "<path>", e2b-dev/infra
// packages/orchestrator/internal/template/build/commands/workdir.go), so a
// relative one is not resolved against the previous workdir as Docker does
// but against wherever each later command starts.
func ValidateWorkdir(dir string) error {
	if !path.IsAbs(dir) {
		return fmt.Errorf("must be an absolute path such as \"/home/user/app\": E2B's builder does not resolve a relative " +
			"workdir against the previous one as Docker does")
	}
	return nil
}

// MaxMinFreeDiskMB is the largest minFreeDiskMb E2B's schema takes (int32, at least 0). The
// team's allowance (LimitFreeDiskSize in e2b-dev/infra packages/api/internal/team) is lower and
// only E2B knows it: above it the request is refused with 400.
const MaxMinFreeDiskMB = 1<<31 - 1
