# The configuration a user writes to adopt objects made out of band by import blocks with
# identities: the build inputs, secrets and URL that E2B does not return are left out, and
# nothing changes. The test's later steps set the variables that default to null.

variable "template_id" { type = string }
variable "build_id" { type = string }
variable "snapshot_id" { type = string }
variable "volume_id" { type = string }
variable "secret_id" { type = string }
variable "webhook_id" { type = string }

variable "template_cpu_count" {
  type    = number
  default = null
}
variable "template_public" {
  type    = bool
  default = null
}
variable "secret_team" {
  type    = string
  default = "data"
}
variable "webhook_enabled" {
  type    = bool
  default = null
}

import {
  to       = e2b_template.app
  identity = { template_id = var.template_id }
}
resource "e2b_template" "app" {
  name      = "adopt-app"
  cpu_count = var.template_cpu_count
  public    = var.template_public
}

import {
  to       = e2b_template_tag.prod
  identity = { template = "adopt-app", tag = "prod" }
}
resource "e2b_template_tag" "prod" {
  template = "adopt-app"
  tag      = "prod"
  build_id = var.build_id
}

import {
  to       = e2b_snapshot.ready
  identity = { snapshot_id = var.snapshot_id }
}
resource "e2b_snapshot" "ready" {
  name = "adopt-snap"
}

import {
  to       = e2b_volume.data
  identity = { volume_id = var.volume_id }
}
resource "e2b_volume" "data" {
  name = "adopt-vol"
}

import {
  to       = e2b_secret.token
  identity = { secret_id = var.secret_id }
}
resource "e2b_secret" "token" {
  name     = "adopt-secret"
  metadata = { team = var.secret_team }
}

import {
  to       = e2b_webhook.hook
  identity = { webhook_id = var.webhook_id }
}
resource "e2b_webhook" "hook" {
  name    = "adopt-hook"
  events  = ["sandbox.lifecycle.created", "sandbox.lifecycle.killed"]
  enabled = var.webhook_enabled
}
