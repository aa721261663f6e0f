"""What the app writes: tables and plots as files, the report folder, and
the export actions of the File menu."""
