import os
import unittest


class Smoke(unittest.TestCase):
    def test_stage_file(self):
        here = os.path.dirname(__file__)
        with open(os.path.join(here, "stage.txt")) as f:
            self.assertEqual(f.read().strip(), os.environ["STAGE"])


if __name__ == "__main__":
    unittest.main()
