resource "e2b_template" "a" {
  name          = "acc-twice"
  from_template = "base"
  steps         = [{ run = { command = "echo a" } }]
}

resource "e2b_template" "b" {
  name          = "acc-twice"
  from_template = "base"
  steps         = [{ run = { command = "echo b" } }]
}
