"""PyInstaller runtime hook of the bundle (packaging/shrec-gui.spec's
runtime_hooks): Qt's OpenGL binding, PySide6.QtOpenGL (8.5 MiB), is left out
of the bundle, and this stands in for it.

pyqtgraph imports it when its plots are imported (PlotCurveItem,
PColorMeshItem, RawImageWidget and its Qt helpers:
``importlib.import_module("PySide6.QtOpenGL")``) but uses it only to draw
with OpenGL (its ``useOpenGL`` and ``enableExperimental`` options), which the
app never turns on. So the import works (a finder on ``sys.meta_path`` makes
the module, with its spec, and the import system sets it on PySide6), and
any name asked of it raises AttributeError saying why: the error ``hasattr``,
``getattr(..., default)``, ``inspect`` and pickle's search of every module for
an object's home expect, so they go on as they would without the module.
The Qt class names asked (``Q...``) are recorded in ``QtOpenGLLeftOut.asked``:
tests/test_project_packaging.py runs the app's plots with this file and
checks that none was asked.
"""

import importlib.abc
import importlib.util
import sys
import types

#: what an attempt to use Qt's OpenGL classes in the frozen app says
MESSAGE = "Qt's OpenGL binding is left out of this bundle: the app draws its plots without OpenGL"
NAME = "PySide6.QtOpenGL"


class QtOpenGLLeftOut(types.ModuleType):
    """PySide6.QtOpenGL in the bundle: every name asked of it is missing, and
    the error says why."""

    asked: list = []

    def __getattr__(self, name):
        if name.startswith("Q"):
            QtOpenGLLeftOut.asked.append(name)
        raise AttributeError(f"{NAME}.{name}: {MESSAGE}", name=name, obj=self)

    def __dir__(self):
        return []


class _LeftOutFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds PySide6.QtOpenGL first, as the stand-in."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname == NAME else None

    def create_module(self, spec):
        return QtOpenGLLeftOut(spec.name, MESSAGE)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _LeftOutFinder())
