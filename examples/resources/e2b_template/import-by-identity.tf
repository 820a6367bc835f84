import {
  to = e2b_template.python_app
  identity = {
    template_id = "k3q8z1x0b9m2n4p6r7s5"
  }
}
