"""Reading: from a file (or a pipe, or a folder of rank lists) to the model.
:mod:`.formats` holds one module per input format (``.cla``, TREC qrels and
runs, ASCII and binary matrices, rank-list folders, feature vectors with
their distances) and the pieces they share (the input gate
:mod:`.formats.source`, tokens, number parsing, id coding, row sorting,
top-K); :mod:`.detect` tells a file's format from its content and
:mod:`.readers` dispatches to its reader; :mod:`.contest_fields` checks the
fields of a contest file.  Reading knows nothing of measures, profiles or
outputs."""
