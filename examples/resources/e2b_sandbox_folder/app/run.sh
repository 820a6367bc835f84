#!/bin/sh
set -eu
python3 main.py
