"""Application layer: the pipelines that chain stages, one module per verb.

``analyze`` (one file: parse → inventory → rules → statistics, shared by the three below), ``scan`` (walk
a tree and analyse every file in a pool), ``translate`` (write the HIP tree and its translation share),
``buildcheck`` (translate, then compile both sides and attribute the errors). The assess pipeline is
``decide/pipeline.py`` for now (placed in this layer by ``hipgauge/layers.py``).

May import: stages, model, knowledge. Never report or cli. See ``hipgauge/layers.py``.
"""
