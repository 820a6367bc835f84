package provider

import "testing"

// TestAccTemplate_missingImageFailsWithItsName: a Dockerfile FROM an image the
// emulator does not have fails the apply with the image's name and how to
// provide it, instead of building on the host's root filesystem.
func TestAccTemplate_missingImageFailsWithItsName(t *testing.T) {
	testAccTemplateBuildFails(t, `
resource "e2b_template" "app" {
  name       = "acc-missing-image"
  dockerfile = "FROM python:3.12-slim\nRUN python3 --version\n"
}
`, `(?s)Template build failed.*image\s+'python:3\.12-slim'\s+is\s+not\s+in\s+the\s+emulator's\s+image\s+store.*-image-store\s+DIR.*-host-root-images\s+python:3\.12-slim`)
}
