"""Data files of shrec-eval (the demo contest, icons, desktop entry), installed as the
package ``shrec_eval._resources``; found by :mod:`shrec_eval.resources`."""
