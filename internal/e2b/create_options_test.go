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
		{[]VolumeMount{{Name: "a", Path: "/x"}, {Name: "b", Path: "/x/./"}}, `used by volumes "a" and "b"`},
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
