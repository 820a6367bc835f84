package e2b

import (
	"strings"
	"testing"
)

func TestValidateTemplateTag(t *testing.T) {
	for tag, ok := range map[string]bool{
		"prod": true, "v1.2": true, "release_2-b": true,
		"Prod": false, "": false, "a b": false, "a:b": false, "a/b": false,
		"0cba64aa-ca41-4b29-bc7f-f27f81cecb4d": false,
	} {
		if err := ValidateTemplateTag(tag); (err == nil) != ok {
			t.Errorf("ValidateTemplateTag(%q) = %v; want ok %v", tag, err, ok)
		}
	}
}

func TestValidateBuildID(t *testing.T) {
	for id, ok := range map[string]bool{
		"0cba64aa-ca41-4b29-bc7f-f27f81cecb4d": true,
		"0CBA64AA-CA41-4B29-BC7F-F27F81CECB4D": false, "prod": false, "": false,
		"0cba64aa-ca41-4b29-bc7f-f27f81cecb4d-x": false,
	} {
		if err := ValidateBuildID(id); (err == nil) != ok {
			t.Errorf("ValidateBuildID(%q) = %v; want ok %v", id, err, ok)
		}
	}
}

// The names of the issue that passed plan and failed at E2B ("Invalid
// template name") are refused; E2B's own alphabet passes.
func TestValidateTemplateName(t *testing.T) {
	cases := map[string]bool{
		"my-app": true, "my_app": true, "team/my-app": true, "0app": true, "-a": true, "a_": true,
		"a_b.c-d": false, "a..b": false, "a.b.": false, "team.x/app": false, "team/a.b": false,
		"": false, "My-App": false, "a b": false, "a:tag": false, "a/b/c": false, "/a": false, "a/": false,
	}
	cases[strings.Repeat("a", 128)] = true
	cases[strings.Repeat("a", 129)] = false
	for name, ok := range cases {
		if err := ValidateTemplateName(name); (err == nil) != ok {
			t.Errorf("ValidateTemplateName(%q) = %v; want ok %v", name, err, ok)
		}
	}
}

// An import reads a sandbox's template without its tag; a configuration that adds only the tag
// names the same template, with or without the team's namespace on either side.
func TestTagOnlyAdded(t *testing.T) {
	for _, tc := range []struct {
		imported, configured string
		want                 bool
	}{
		{"python-app", "python-app:prod", true},
		{"my-team/python-app", "python-app:prod", true},
		{"python-app", "my-team/python-app:prod", true},
		{"my-team/python-app", "my-team/python-app:prod", true},
		{"my-team/python-app", "other-team/python-app:prod", false},
		{"python-app", "python-app", false},
		{"python-app:dev", "python-app:prod", false},
		{"python-app", "python-web:prod", false},
		{"python-app", "python-app:", false},
	} {
		if got := TagOnlyAdded(tc.imported, tc.configured); got != tc.want {
			t.Errorf("TagOnlyAdded(%q, %q) = %v, want %v", tc.imported, tc.configured, got, tc.want)
		}
	}
}
