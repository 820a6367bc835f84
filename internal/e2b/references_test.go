package e2b

import (
	"context"
	"errors"
	"testing"
)

func TestMissingTemplateAndVolumeOnCreate(t *testing.T) {
	tmpl := &APIError{Op: "create sandbox", StatusCode: 404, Message: "template 'bsae' not found"}
	vol := &APIError{Op: "create sandbox", StatusCode: 400, Message: "volume 'build-cahce' not found"}
	if !MissingTemplateOnCreate(tmpl) || MissingTemplateOnCreate(vol) {
		t.Error("MissingTemplateOnCreate mistook an answer")
	}
	if name, ok := MissingVolumeOnCreate(vol); !ok || name != "build-cahce" {
		t.Errorf("MissingVolumeOnCreate = %q, %v", name, ok)
	}
	if _, ok := MissingVolumeOnCreate(tmpl); ok {
		t.Error("a missing template read as a missing volume")
	}
}

// A namespaced template reference is not looked up: the create alone resolves it.
func TestTemplateMissingLeavesNamespacedReferences(t *testing.T) {
	c := newTestClient(t, fastConfig("http://127.0.0.1:1"))
	if _, err := c.TemplateMissing(context.Background(), "team/app:v2"); !errors.Is(err, ErrCannotTell) {
		t.Fatalf("namespaced reference: %v", err)
	}
}
