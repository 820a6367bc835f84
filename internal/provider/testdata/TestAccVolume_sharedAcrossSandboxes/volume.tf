# Commands use cwd so that they reach the mount also where the emulator runs without mount
# namespaces.
resource "e2b_volume" "shared" {
  name = "acc-shared"
}
