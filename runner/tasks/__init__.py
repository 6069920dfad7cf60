"""Task packages: everything specific to one kind of system under test."""
