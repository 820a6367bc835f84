variable "name" {
  description = "Template name."
  type        = string
  default     = "pipeline-demo"
}
