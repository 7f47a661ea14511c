"""Report layer: every renderer. The assessment document, Markdown, HTML, SARIF and charts, the scan JSON
document, and the terminal views of each verb (``*_terminal.py``, ``terminal``). Renderers take a result
and print or return text; they do no analysis.

May import: knowledge, model, the stages and the application layer. Never cli. See ``hipgauge/layers.py``.
"""
