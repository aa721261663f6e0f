"""The command line, ``shrec-eval``: :mod:`.parser` is ``main`` (the one
place where a user error becomes one line on stderr) and the parser built
from :mod:`.option_groups` (the options the commands share) and
:mod:`.command_parsers` (each command's options, help and examples);
:mod:`.commands` is what each command does, from :mod:`.arguments` (the
options and contest the arguments name, the outputs gated) and
:mod:`.steps` (progress, scoring, the files asked for).  Nothing else in
shrec_eval, and nothing in the app, imports it."""
