"""Rules stage: the port-risk rules (``checks/``, one module per rule), their catalogue and registry, the
engine that runs them over a parsed file (``engine``), and the per-file statistics and translation share
computed from their findings (``share``).

May import: knowledge, model, and the source stage. See ``hipgauge/layers.py``.
"""
