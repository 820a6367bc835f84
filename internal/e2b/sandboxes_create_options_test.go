package e2b

import (
	"strings"
	"testing"
)

func TestValidateVolumeMounts(t *testing.T) {
	for _, tc := range []struct {
		mounts []VolumeMount
		want   string // "" = valid
	}{
		{[]VolumeMount{{Name: "a", Path: "/mnt/a"}, {Name: "b", Path: "/mnt/b"}}, ""},
		{[]VolumeMount{{Name: "", Path: "/mnt/a"}}, "needs a volume name"},
		{[]VolumeMount{{Name: "a", Path: "mnt/a"}}, "must be absolute"},
		{[]VolumeMount{{Name: "a", Path: "/mnt/.."}}, "cannot be mounted at /"},
		{[]VolumeMount{{Name: "a", Path: "/x"}, {Name: "b", Path: "/x"}}, `used by volumes "a" and "b"`},
		// E2B refuses what path.Clean would change; the error names the clean form.
		{[]VolumeMount{{Name: "a", Path: "/mnt/a/"}}, `write "/mnt/a"`},
		{[]VolumeMount{{Name: "a", Path: "/mnt//b"}}, `write "/mnt/b"`},
		{[]VolumeMount{{Name: "a", Path: "/mnt/./c"}}, `write "/mnt/c"`},
		{[]VolumeMount{{Name: "a", Path: "/mnt/x/../d"}}, `write "/mnt/d"`},
		{[]VolumeMount{{Name: "a", Path: "/mnt/a\x00b"}}, "control characters"},
		{[]VolumeMount{{Name: "a", Path: "/mnt/a\tb"}}, "control characters"},
	} {
		err := ValidateVolumeMounts(tc.mounts)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.mounts, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want an error with %q", tc.mounts, err, tc.want)
		}
	}
}

func TestValidateIAMTokenName(t *testing.T) {
	for _, name := range []string{"aws", "gcp-prod", "a.b_c", "ünï"} {
		if err := ValidateIAMTokenName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", "a}b", "a{b", "a\nb", "a\x7fb", "a\u0085b"} {
		if err := ValidateIAMTokenName(name); err == nil {
			t.Errorf("%q accepted", name)
		}
	}
	req := CreateSandboxRequest{IAMTokens: map[string]IAMToken{"": {Audience: "a", TokenType: "jwt"}}}
	if err := req.Validate(); err == nil || !strings.Contains(err.Error(), "must not be empty") {
		t.Errorf("a create with an empty iam token name: %v", err)
	}
}
