"""The profiles stage: profiler files in, kernel tables and their comparison out.

``load.load_profile`` reads any supported profile (``readers/``, one module per tool, each declaring its
formats; ``detect`` picks the format) into a ``model.Profile``; ``match``, ``parity``, ``projection``,
``percentiles`` and ``grouping`` compare and project profiles and know nothing of file formats; ``counters``
(with ``counter_formulas``) turns the hardware counters a reader attached into per-kernel occupancy and
memory-throughput figures beside the parity rows.
Imports: ``hipgauge.model``, ``hipgauge.errors``, ``hipgauge.kernel_names`` and the data tables; never a
later stage.
"""
