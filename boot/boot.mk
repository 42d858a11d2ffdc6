# boot/: sources (see Makefile header for the lists).
