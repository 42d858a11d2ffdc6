# runtime/: sources (see Makefile header for the lists).
