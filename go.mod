module github.com/e2b-terraform/terraform-provider-e2b

go 1.26.6

require (
	github.com/apparentlymart/go-textseg/v15 v15.0.0 // indirect
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/hashicorp/terraform-exec v0.26.0 // indirect
	github.com/hashicorp/terraform-json v0.29.0 // indirect
	github.com/hashicorp/terraform-plugin-framework v1.19.0 // indirect
	github.com/hashicorp/terraform-plugin-framework-timeouts v0.7.0 // indirect
	github.com/hashicorp/terraform-plugin-framework-validators v0.19.0 // indirect
	github.com/hashicorp/terraform-plugin-go v0.31.0 // indirect
	github.com/hashicorp/terraform-plugin-log v0.11.0 // indirect
	github.com/hashicorp/terraform-plugin-testing v1.16.0 // indirect
	github.com/zclconf/go-cty v1.18.1 // indirect
	golang.org/x/text v0.41.0 // indirect
)
