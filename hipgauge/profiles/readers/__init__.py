"""One module per profiler: each declares ``FORMATS`` (``registry.Format``: name, sniff, read, folder picks)
and returns a ``hipgauge.model.Profile`` through ``finish.finish_profile``. The shared plumbing lives beside
them: ``files`` (size caps, gzip), ``table`` (profiler CSVs), ``chrome_json`` (streamed traces), ``kineto_events`` (the Kineto
parse phase: msgspec structs, parallel byte ranges), ``frame``
(the kernel table), ``ranges`` (NVTX/roctx attribution), ``registry`` (discovery and sniffing). The counters
phase (``counters``: hardware counters of ncu, rocprof v1 ``--pmc``, rocprofv3 and rocprof-compute joined onto the
kernel records as ``Profile.attachments["counters"]``) reads through ``counters_ncu``, ``counters_rocprof`` and
``counters_table``."""
