"""banklab: the course's Python package (the second foundation beside common/).

  banklab.lab      what a lab is (labs), its lane expressions (expr), its description's checks and
                   the C++ made from it (gen), the questions' predictions (predictions)
  banklab.grading  grading a class: sources, uploads and archives, identities, LMS and platform
                   files, points, the judge's invocation, Slurm, GPUs, reports and status
  banklab.docs     the course site's reading of the labs (site, lab_work)

Scripts find it through python/banklab_run.py, the one file that sets Python's path.
"""
