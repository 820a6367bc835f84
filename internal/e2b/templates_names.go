package e2b

import (
	"fmt"
	"regexp"
)

var (
	templateTagPattern = regexp.MustCompile(`^[a-z0-9_.-]+$`)
	buildIDPattern     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// ValidateTemplateTag applies E2B's rules for a tag. E2B lower-cases tags, so
// a tag with capitals would never be found again under the name it was given;
// a UUID is refused because after a colon it names a build.
func ValidateTemplateTag(tag string) error {
	switch {
	case !templateTagPattern.MatchString(tag):
		return fmt.Errorf("must be lower-case letters, digits, '.', '_' and '-' (E2B lower-cases tags)")
	case buildIDPattern.MatchString(tag):
		return fmt.Errorf("must not be a UUID: after a colon a UUID names a build, not a tag")
	}
	return nil
}

// ValidateBuildID checks that id is a build ID as E2B returns it: a
// lower-case UUID. A tag in its place would name whatever build the tag
// points at, which changes under the caller.
func ValidateBuildID(id string) error {
	if !buildIDPattern.MatchString(id) {
		return fmt.Errorf("must be a build ID, a lower-case UUID such as e2b_template.<name>.build_id (not a tag)")
	}
	return nil
}
