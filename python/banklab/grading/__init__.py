"""Grading a class: sources, uploads, identities, LMS and platform files, points, the judge, Slurm, reports."""
