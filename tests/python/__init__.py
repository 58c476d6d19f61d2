"""Tests of the Python package python/gpumon (unittest; run from the repository root:
/usr/bin/python3 -m unittest discover -s tests/python -t .)."""
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
