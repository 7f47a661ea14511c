"""Ships the top-level ``examples/`` folder inside the wheel as ``hipgauge.examples``.

Everything else about the package lives in pyproject.toml; this file exists only because
``package_dir`` for a folder outside the package tree is clearest stated in code.
"""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["hipgauge", "hipgauge.*"]) + ["hipgauge.examples"],
    package_dir={"hipgauge.examples": "examples"},
    package_data={
        "hipgauge": ["data/*", "data/**/*", "report/templates/*"],
        "hipgauge.examples": ["**/*"],
    },
)
