package e2b

import "testing"

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
