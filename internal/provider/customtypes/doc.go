// Package customtypes holds the provider's custom attribute types: GoDuration, a Go duration
// string whose syntax the attribute's validator reports once, and SensitiveJSON, JSON that
// compares as JSON and never prints its value.
//
// It knows no Terraform type of the provider: it may import the framework and
// internal/provider/convert, nothing else of this module (see the layering test in
// internal/provider).
package customtypes
