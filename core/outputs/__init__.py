"""Outputs: what results become on disk.  :mod:`.atomic` is the output gate
(outputs never onto inputs, links and devices refused) and :mod:`.writing`
writes every file atomically; :mod:`.report` writes a report folder from a
:mod:`.summary` of the results, as the text of :mod:`.tables` (CSV,
Markdown, LaTeX laid out by :mod:`.tex_layout`, HTML) and JSON written in
pieces (:mod:`.json_pieces`); :mod:`.figures` draws the print figures with
matplotlib (:mod:`.figure_style`: presets, legends, bytes; :mod:`.palette`:
colours), a report's in helper processes (:mod:`.figure_jobs`);
:mod:`.gallery` the report's gallery of shapes; :mod:`.native` the files
an official evaluator writes, from a profile's writer.  Outputs read
results; they never score."""
