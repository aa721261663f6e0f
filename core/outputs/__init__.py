"""Outputs: what results become on disk.  :mod:`.atomic` is the output gate
(every file written atomically, outputs never onto inputs, links and devices
refused); :mod:`.report` writes JSON, CSV, Markdown, LaTeX and HTML;
:mod:`.figures` draws the print figures with matplotlib (:mod:`.palette`:
their colours and formats); :mod:`.gallery` the report's gallery of shapes;
:mod:`.native` the files an official evaluator writes, from a profile's
writer.  Outputs read results; they never score."""
