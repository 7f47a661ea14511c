"""`hipgauge version`."""

from __future__ import annotations

import typer

from hipgauge.cli.app import app, emit_json, out


@app.command()
def version(json_out: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """Print the hipgauge version."""
    from hipgauge import __version__

    if json_out:
        emit_json({"schema": "hipgauge.version/1", "version": __version__})
    else:
        out.print(f"hipgauge {__version__}")
