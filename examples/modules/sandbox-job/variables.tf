variable "name" {
  description = "Name of the job, recorded in the sandbox's metadata."
  type        = string
}

variable "command" {
  description = "Shell command to run in work_dir."
  type        = string
}

variable "files" {
  description = "Files to write before the command runs: content by name, relative to work_dir."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for name in keys(var.files) : !startswith(name, "/") && !strcontains(name, "..")])
    error_message = "File names are relative to work_dir: no leading \"/\" and no \"..\"."
  }
}

variable "template" {
  description = "E2B template the sandbox starts from."
  type        = string
  default     = "base"
}

variable "work_dir" {
  description = "Directory in the sandbox for the files and the command."
  type        = string
  default     = "/home/user/job"
}

variable "allow_failure" {
  description = "Record a non-zero exit code in exit_code instead of failing the apply."
  type        = bool
  default     = false
}
