"""Toolchain stage: find and run nvcc/hipcc (``drivers``), read their diagnostics and resource usage
(``nvcc_output``, ``hipcc_output``, ``resources``), blank out failing regions (``isolate``) and estimate
occupancy (``occupancy``). The build-check pipeline that uses them is ``hipgauge/app/buildcheck.py``.

May import: knowledge, model, and the source, rules and translate stages. See ``hipgauge/layers.py``.
"""
