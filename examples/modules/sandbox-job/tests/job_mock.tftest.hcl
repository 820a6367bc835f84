# Plan-only tests with a mocked provider: no emulator, no E2B account, no
# network. The e2b provider is still installed (Terraform reads its schema), but
# none of its code runs: resources get the values below, or values Terraform
# makes up, for what E2B would compute. Such tests check the module's own
# logic (names, paths, counts, validations); job.tftest.hcl, beside this file,
# runs the module for real against the emulator. Needs Terraform 1.7+ or
# OpenTofu 1.8+.

mock_provider "e2b" {
  mock_resource "e2b_sandbox" {
    defaults = {
      id = "imocksandbox0000000001"
    }
  }
  mock_resource "e2b_sandbox_command" {
    defaults = {
      exit_code = 0
      stdout    = "3\n"
      stderr    = ""
    }
  }
}

variables {
  name    = "word-count"
  command = "wc -w < words.txt"
  files = {
    "words.txt" = "one two three\n"
    "more.txt"  = "four\n"
  }
}

run "plans_one_file_per_input_in_the_work_dir" {
  command = plan
  assert {
    condition     = length(e2b_sandbox_file.input) == 2
    error_message = "Expected one e2b_sandbox_file per input file."
  }
  assert {
    condition     = e2b_sandbox_file.input["words.txt"].path == "/home/user/job/words.txt"
    error_message = "Files go into work_dir, got ${e2b_sandbox_file.input["words.txt"].path}."
  }
  assert {
    condition     = e2b_sandbox_command.run.cwd == "/home/user/job"
    error_message = "The command runs in work_dir."
  }
  assert {
    condition     = e2b_sandbox.job.metadata["job"] == "word-count"
    error_message = "The sandbox records the job's name in its metadata."
  }
}

run "passes_allow_failure_to_the_command" {
  command = plan
  variables {
    allow_failure = true
  }
  assert {
    condition     = e2b_sandbox_command.run.allow_non_zero_exit
    error_message = "allow_failure must reach allow_non_zero_exit."
  }
}

run "rejects_a_file_outside_the_work_dir" {
  command = plan
  variables {
    files = {
      "../escape.txt" = "x"
    }
  }
  expect_failures = [var.files]
}

# An apply with the mock: the outputs come from the mocked values above, so the
# wiring from the command to the outputs is checked without running anything.
run "outputs_what_the_command_printed" {
  assert {
    condition     = output.stdout == "3\n" && output.exit_code == 0
    error_message = "The outputs must be the command's: got ${jsonencode(output.stdout)}, ${output.exit_code}."
  }
  assert {
    condition     = output.sandbox_id == "imocksandbox0000000001"
    error_message = "sandbox_id must be the sandbox's ID."
  }
}
