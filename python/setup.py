"""For setuptools older than PEP 517 support (and `python3 setup.py install`): everything is in setup.cfg."""
from setuptools import setup

setup()
