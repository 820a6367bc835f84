// Package base is what every Terraform type of the provider is built on, without knowing any of
// them: the provider's data and the configure step of each kind of type (ResourceConfig,
// DataSourceConfig, EphemeralConfig, ActionConfig), the steps resources' CRUD methods share
// (ModelAndClient, WithTimeout, RemoveGone, ImportedID), the mapping of client errors to
// diagnostics (ClientErrorDiagnostic), the settling of a create whose answer was lost
// (KeptCreate), the identity and import of objects named by an owner and a path (OwnedPath),
// the generic team list resource and list and object data sources, the schema builders of computed
// attributes and of a list resource's filter (ListConfigAttributes), the names this run plans to
// create, the timeouts blocks and the record of local files seen at plan time (LocalSeen).
//
// The types themselves live in package provider, which registers them. This package may import
// the framework, internal/e2b and the foundation packages convert, customtypes and validators, never
// package provider or a type's file: the layering test in internal/provider holds the list.
package base
