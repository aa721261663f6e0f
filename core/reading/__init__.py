"""Reading: from a file (or a pipe, or a folder of rank lists) to the model.
:mod:`.formats` holds one module per input format (``.cla``, TREC qrels and
runs, ASCII and binary matrices, rank-list folders, feature vectors) and the
pieces they share (the input gate :mod:`.formats.source`, tokens, number
parsing, id coding, row sorting, top-K); :mod:`.readers` detects a file's
format and dispatches to its reader.  Reading knows nothing of measures,
profiles or outputs."""
