package e2b_test

import (
	"runtime"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// E2B's refusals of a build request are told apart: a name another template has (409) and a
// minFreeDiskMb above the allowance (400; the emulator allows its data dir's free space, so a
// value no disk has is refused). One within it is taken.
func TestEmulatorTemplateRequestRefusals(t *testing.T) {
	e := newEnv(t)
	_, err := e.c.RequestTemplateBuild(e.ctx, e2b.TemplateRequest{Name: "base"})
	if !e2b.IsTemplateNameTaken(err) || e2b.IsFreeDiskRefused(err) {
		t.Fatalf("request named base: %v", err)
	}
	if runtime.GOOS != "linux" {
		t.Skip("the emulator reads its data dir's free space only on Linux, so it refuses no minFreeDiskMb here")
	}
	huge := int32(e2b.MaxMinFreeDiskMB)
	_, err = e.c.RequestTemplateBuild(e.ctx, e2b.TemplateRequest{Name: "roomy", MinFreeDiskMB: &huge})
	if !e2b.IsFreeDiskRefused(err) || e2b.IsTemplateNameTaken(err) {
		t.Fatalf("request with minFreeDiskMb %d: %v", huge, err)
	}
	zero := int32(0)
	if _, err := e.c.RequestTemplateBuild(e.ctx, e2b.TemplateRequest{Name: "roomy", MinFreeDiskMB: &zero}); err != nil {
		t.Fatalf("request with minFreeDiskMb 0: %v", err)
	}
}
