// Package convert turns Go values into Terraform framework values and back: timestamps,
// string maps, sets and lists, optional strings, booleans and durations' short spelling, and a
// model's attributes by their tfsdk names (AttrValues, NullUnknowns).
//
// It knows no Terraform type of the provider and no E2B rule: it may import the framework
// and the standard library only, no package of this module (the layering test in
// internal/provider lists what each foundation package may import).
package convert
