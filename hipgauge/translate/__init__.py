"""Translate stage: rewrite one parsed file from CUDA to HIP (``rewrite`` for source, ``buildfiles`` for
CMake/Make/setup.py, ``lexical`` for the fast path), the safe rewrites, and the per-file result
(``result``). Translating a whole tree is the application layer's (``hipgauge/app/translate.py``).

May import: knowledge, model, and the source and rules stages. See ``hipgauge/layers.py``.
"""
