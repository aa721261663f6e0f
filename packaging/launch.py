"""Entry point of the frozen app (PyInstaller): the desktop app, or the
command line when the executable is started as ``shrec-eval`` (the .deb's
``/usr/bin/shrec-eval`` is a link to it), so that one bundle holds both."""

import multiprocessing
import os
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    if os.path.basename(sys.argv[0]).startswith("shrec-eval"):
        from shrec_eval.cli.parser import entry_point

        entry_point()
    from shrec_gui.app import main

    sys.exit(main())
