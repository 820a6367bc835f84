// Package process holds what concerns the provider's own process rather than Terraform or E2B:
// noticing that the CLI which started it is gone, and writing a CPU profile on request.
package process
