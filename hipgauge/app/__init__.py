"""Application layer: the pipelines that chain stages, one module per verb.

``analyze`` (one file: parse → inventory → rules → statistics, shared by the three below), ``scan`` (walk
a tree and analyse every file in a pool), ``translate`` (write the HIP tree and its translation share),
``buildcheck`` (translate, then compile both sides and attribute the errors), ``assess`` (scan → translate
statistics → build-check → compare or project → cost → decide, for one report folder) and ``buildcheck_job``
(the build-check run in a child process under assess's time budget).

May import: stages, model, knowledge. Never report or cli. See ``hipgauge/layers.py``.
"""
