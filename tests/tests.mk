# tests/: sources (see Makefile header for the lists).
