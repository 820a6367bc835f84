# Runs the module for real: against the E2B emulator in CI, or against E2B
# itself. The provider reads E2B_API_KEY, E2B_API_URL and E2B_SANDBOX_URL
# from the environment, which the emulator prints when it starts.

variables {
  name    = "word-count"
  command = "wc -w < words.txt"
  files = {
    "words.txt" = "one two three\n"
  }
}

run "runs_the_command_on_its_files" {
  assert {
    condition     = output.exit_code == 0
    error_message = "The command failed: ${output.stderr}"
  }
  assert {
    condition     = trimspace(output.stdout) == "3"
    error_message = "Expected 3 words, the command printed ${jsonencode(output.stdout)}."
  }
}

run "runs_again_when_a_file_changes" {
  variables {
    files = {
      "words.txt" = "one two three four\n"
    }
  }
  assert {
    condition     = trimspace(output.stdout) == "4"
    error_message = "Expected 4 words, the command printed ${jsonencode(output.stdout)}."
  }
}

run "records_a_failing_command_when_allowed" {
  variables {
    command       = "echo 'no such input' >&2; exit 3"
    allow_failure = true
  }
  assert {
    condition     = output.exit_code == 3
    error_message = "Expected exit code 3, got ${output.exit_code}."
  }
  assert {
    condition     = strcontains(output.stderr, "no such input")
    error_message = "stderr lost the command's message: ${jsonencode(output.stderr)}."
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
