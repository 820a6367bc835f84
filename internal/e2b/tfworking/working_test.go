package tfworking

import "testing"

// One list for uploads and downloads: the lock file and saved plans are working files for both.
func TestPathAndUnwritable(t *testing.T) {
	for rel, want := range map[string][2]bool{ // {Path, Unwritable}
		"terraform.tfstate":              {true, true},
		"a/b/terraform.tfstate.backup":   {true, true},
		".Terraform/providers/x":         {false, true}, // a case-insensitive disk writes .terraform
		"Terraform.TFSTATE":              {false, true},
		".terraform.tfstate.lock.info":   {true, true},
		".terraform.lock.hcl":            {true, true},
		"sub/.terraform.lock.hcl":        {true, true},
		"prod.tfplan":                    {true, true},
		"crash.log":                      {true, true},
		"crash.20260101.log":             {true, true},
		".terraform":                     {true, true},
		"x/.terraform/providers/p":       {true, true},
		"terraform.tfstate.d/dev/s":      {true, true},
		"main.tf":                        {false, true},
		"deep/er/zz_sandbox.tf":          {false, true},
		"main.TF":                        {false, true},
		"x.tf.json":                      {false, true},
		"x.tofu":                         {false, true},
		"prod.tfvars":                    {false, true},
		"a.auto.tfvars.json":             {false, true},
		"tests/a.tftest.hcl":             {false, true},
		"terraform.d/plugins/x/y":        {false, true},
		".terraformrc":                   {false, true},
		"mod.tf/inner.txt":               {false, true},
		"report.txt":                     {false, false},
		"tfplan.md":                      {false, false},
		"terraform.tfstate.md/notes.txt": {false, false},
		"tf/readme":                      {false, false},
	} {
		if got := Path(rel); got != want[0] {
			t.Errorf("Path(%q) = %v, want %v", rel, got, want[0])
		}
		if got := Unwritable(rel); got != want[1] {
			t.Errorf("Unwritable(%q) = %v, want %v", rel, got, want[1])
		}
	}
}
