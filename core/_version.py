"""The version of shrec-eval: the git tag it was built from, as setuptools-scm
writes it to ``_scm_version.py`` when a wheel, an sdist or an editable
install is built (pyproject.toml's ``[tool.setuptools_scm]``; between tags the
next version's ``.devN+gHASH``, so that outputs name the code that made
them), or ``0+unknown`` for a checkout imported without being built."""

try:
    from ._scm_version import __version__
except ImportError:  # a checkout put on sys.path by hand: never built
    __version__ = "0+unknown"
