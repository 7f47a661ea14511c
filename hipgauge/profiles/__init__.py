"""Profiles stage: read profiler output (``readers/``, ``detect``, ``load``) into one ``Profile``, normalize
and group kernel names, match kernels across two profiles, and compute parity, percentiles and latency
projections.

May import: knowledge, model, and the stages before it (source, rules, translate, toolchain). See
``hipgauge/layers.py``.
"""
