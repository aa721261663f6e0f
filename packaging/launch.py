"""Entry point of the frozen app (PyInstaller)."""

import multiprocessing
import sys

from shrec_gui.app import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
