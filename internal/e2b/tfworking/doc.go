// Package tfworking is Terraform's and OpenTofu's working-file rule, the one
// place the E2B client knows anything of Terraform.
//
// Working files are what the CLI writes and reads around a configuration: the
// .terraform folder (providers and modules it runs), state and its backups and
// lock info, terraform.tfstate.d, the dependency lock file, crash logs and
// saved plans. They change while the CLI runs and state and plans hold every
// secret of the configuration in clear, so uploads (folder uploads and
// template build contexts) leave them out. Downloads never write them either,
// nor configuration files (*.tf, *.tfvars, …) or the CLI's settings: a file a
// sandbox chose that lands among them is code the next run executes on the
// runner.
package tfworking
