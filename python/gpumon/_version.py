"""The one version of gpumon: this package, the gpumon binary (CMakeLists.txt reads it from here) and
the wheel scripts/wheel builds."""
__version__ = "0.2.0"
