"""Decide stage: the porting rubric, the cost model, the classification of build-check errors and kernel
time shares. The assess pipeline that chains them with the other stages is ``hipgauge/app/assess.py``.

May import: knowledge, model, and the stages before it (source … profiles). See ``hipgauge/layers.py``.
"""
