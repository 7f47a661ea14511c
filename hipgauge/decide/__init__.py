"""Decide stage: the porting rubric, the cost model, the classification of build-check errors and kernel
time shares. ``pipeline`` (the assess pipeline) and ``buildcheck_job`` chain stages: ``hipgauge/layers.py``
places them in the application layer, where they are to move.

May import: knowledge, model, and the stages before it (source … profiles). See ``hipgauge/layers.py``.
"""
