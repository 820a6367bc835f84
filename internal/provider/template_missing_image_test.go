package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccTemplate_missingImageFailsWithItsName: a Dockerfile FROM an image the
// emulator does not have fails the apply with the image's name and how to
// provide it, instead of building on the host's root filesystem.
func TestAccTemplate_missingImageFailsWithItsName(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := testAccProviderBlock(srv) + `
resource "e2b_template" "app" {
  name       = "acc-missing-image"
  dockerfile = "FROM python:3.12-slim\nRUN python3 --version\n"
}
`
	resource.Test(t, testAccCase(t, checkTemplatesGone(t, srv), []resource.TestStep{
		{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)Template build failed.*image\s+'python:3\.12-slim'\s+is\s+not\s+in\s+the\s+emulator's\s+image\s+store.*-image-store\s+DIR.*-host-root-images\s+python:3\.12-slim`),
		},
	}))
}
