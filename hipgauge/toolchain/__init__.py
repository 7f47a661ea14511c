"""toolchain stage."""
