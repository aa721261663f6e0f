"""The model: what a contest is made of once read, and the basics every layer
uses.  :mod:`.assessment` holds the assessment (classes or graded judgments),
:mod:`.runs` the runs (matrices and ranked lists), :mod:`.data_warnings` what
reading and scoring tell about the data; :mod:`.values` parses and formats
option values and numbers within :mod:`.limits`; :mod:`.names` makes run and
id names safe to show and to use as file names; :mod:`.parallel` runs blocks
of work on a few threads in a fixed order; :mod:`.parent_watch` ties helper
processes' lives to their parent's.  Nothing here imports the other
parts of shrec_eval (only :mod:`shrec_eval.errors`)."""
