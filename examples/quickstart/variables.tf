variable "name" {
  description = "Who the greeting file greets."
  type        = string
  default     = "E2B"
}

variable "paused" {
  description = "Pause the sandbox (true) or keep it running (false). Both change it in place."
  type        = bool
  default     = false
}
