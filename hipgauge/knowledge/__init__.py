"""Knowledge layer: the bundled data tables under ``hipgauge/data/`` and their loaders, each with its source.

Holds the CUDA → HIP name mapping (``mapping``: HIPIFY tables plus hipgauge's additions, library families),
the per-architecture hardware limits (``arch_limits``) and where every data table comes from (``provenance``:
each file's ``as_of`` date and public ``sources``, which reports print under "Knowledge used"). The base modules ``hipgauge.errors``,
``hipgauge.datafiles``, ``hipgauge.tomlfile`` and ``hipgauge.config`` sit in this layer too.

May import: only this layer (and the standard library). See ``hipgauge/layers.py``.
"""
