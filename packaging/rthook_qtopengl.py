"""PyInstaller runtime hook of the bundle (packaging/shrec-gui.spec's
runtime_hooks): Qt's OpenGL binding, PySide6.QtOpenGL (8.5 MiB), is left out
of the bundle, and this stands in for it.

pyqtgraph imports it when its plots are imported (PlotCurveItem,
PColorMeshItem, RawImageWidget and its Qt helpers:
``importlib.import_module("PySide6.QtOpenGL")``) but uses it only to draw
with OpenGL (its ``useOpenGL`` and ``enableExperimental`` options), which the
app never turns on. So the import works, and any use of a name of the module
(a class, an enum) fails with an ImportError that says why; those names are
recorded in ``QtOpenGLLeftOut.asked`` (tests/test_project_packaging.py runs
the app's plots with this file and checks that none was asked). A dunder
name (``__file__``, ``__path__``...) raises AttributeError, as it does of a
module without it: introspection such as ``hasattr(module, "__file__")``
over ``sys.modules`` (inspect.getmodule, pickle) catches only that.
"""

import sys
import types

#: what an attempt to use Qt's OpenGL classes in the frozen app says
MESSAGE = "Qt's OpenGL binding is left out of this bundle: the app draws its plots without OpenGL"


class QtOpenGLLeftOut(types.ModuleType):
    """PySide6.QtOpenGL in the bundle: every name asked of it raises ImportError."""

    asked: list = []

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module 'PySide6.QtOpenGL' has no attribute {name!r}")
        QtOpenGLLeftOut.asked.append(name)
        raise ImportError(f"PySide6.QtOpenGL.{name}: {MESSAGE}", name="PySide6.QtOpenGL")

    def __dir__(self):
        return []


sys.modules["PySide6.QtOpenGL"] = QtOpenGLLeftOut("PySide6.QtOpenGL", MESSAGE)
