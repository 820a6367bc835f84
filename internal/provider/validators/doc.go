// Package validators holds the attribute validators the provider's types share: E2B's rules for
// sandbox IDs, template references, metadata, environment variables, network entries and file
// paths, and the range of a Go duration string. Each error names the attribute and the rule.
//
// It knows no Terraform type of the provider: it may import the framework, internal/e2b (for
// E2B's rules) and internal/provider/convert, nothing else of this module (see the layering
// test in internal/provider).
package validators
