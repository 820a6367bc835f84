package e2b_test

import (
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestVolumeLifecycleThroughTheClient(t *testing.T) {
	e := newEnv(t)
	v, err := e.c.CreateVolume(e.ctx, "client-vol")
	if err != nil {
		t.Fatal(err)
	}
	if v.Token == "" || v.VolumeID == "" {
		t.Fatalf("create answered %+v", v)
	}
	if _, err := e.c.CreateVolume(e.ctx, "bad name"); err == nil || !strings.Contains(err.Error(), "letters, digits") {
		t.Fatalf("bad name: %v", err)
	}
	for _, key := range []string{v.VolumeID, "client-vol"} {
		found, err := e.c.FindVolume(e.ctx, key)
		if err != nil || found == nil || found.VolumeID != v.VolumeID || found.Token != v.Token {
			t.Fatalf("FindVolume(%q) = %+v, %v", key, found, err)
		}
	}
	if found, err := e.c.FindVolume(e.ctx, "missing"); err != nil || found != nil {
		t.Fatalf("FindVolume(missing) = %+v, %v", found, err)
	}
	sb := e.create(t, e2b.CreateSandboxRequest{VolumeMounts: []e2b.VolumeMount{{Name: "client-vol", Path: "/mnt/v"}}})
	d, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil || len(d.VolumeMounts) != 1 || d.VolumeMounts[0] != (e2b.VolumeMount{Name: "client-vol", Path: "/mnt/v"}) {
		t.Fatalf("detail mounts = %+v, %v", d, err)
	}
	err = e.c.DeleteVolume(e.ctx, v.VolumeID)
	if !e2b.IsVolumeInUse(err) || !strings.Contains(err.Error(), sb.SandboxID) {
		t.Fatalf("delete while mounted: %v", err)
	}
	if err := e.c.KillSandbox(e.ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteVolume(e.ctx, v.VolumeID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteVolume(e.ctx, v.VolumeID); !e2b.IsNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestCreateOptionsValidatedBeforeAnyCall(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		req  e2b.CreateSandboxRequest
		want string
	}{
		{e2b.CreateSandboxRequest{VolumeMounts: []e2b.VolumeMount{{Name: "v", Path: "rel"}}}, "must be absolute"},
		{e2b.CreateSandboxRequest{VolumeMounts: []e2b.VolumeMount{{Name: "v", Path: "/"}}}, "cannot be mounted at /"},
		{e2b.CreateSandboxRequest{VolumeMounts: []e2b.VolumeMount{{Name: "a", Path: "/d"}, {Name: "b", Path: "/d"}}}, "used by volumes"},
		{e2b.CreateSandboxRequest{VolumeMounts: []e2b.VolumeMount{{Name: "a", Path: "/d/"}}}, `write "/d"`},
		{e2b.CreateSandboxRequest{IAMTokens: map[string]e2b.IAMToken{"a}b": {Audience: "a", TokenType: "jwt"}}}, "must not contain '{', '}'"},
		{e2b.CreateSandboxRequest{AutoPauseMemory: &no}, "only when the sandbox auto-pauses"},
		{e2b.CreateSandboxRequest{AutoPause: &yes, AutoPauseMemory: &no, AutoResume: &yes}, "cannot be combined with auto_resume"},
		{e2b.CreateSandboxRequest{MCP: []byte(`[1]`)}, "JSON object"},
		{e2b.CreateSandboxRequest{MCP: []byte(`null`)}, "JSON object"},
		{e2b.CreateSandboxRequest{IAMTokens: map[string]e2b.IAMToken{"t": {Audience: "a"}}}, "audience and a token type"},
	} {
		if err := tc.req.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
}
