"""Source stage: read a CUDA/HIP tree. Walk it (``walk``), parse each file with tree-sitter (``parse``),
take its inventory (kernels, device functions, launch sites, CUDA API references: ``inventory``), find the
names and qualifier macros the tree defines (``defined``, ``macros``), read CUDA inside Python files
(``pyinline``), and the Dask executor for scans (``dask_executor``).

May import: knowledge, model. The first stage: no other stage. See ``hipgauge/layers.py``.
"""
