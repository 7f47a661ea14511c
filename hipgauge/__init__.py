"""hipgauge: measure whether a CUDA serving path can move to AMD/ROCm through HIP, and what it costs."""

__version__ = "0.1.0"
