"""The command line, ``shrec-eval``: :mod:`.parser` is what it accepts (the
commands, their options, help) and ``main``, the one place where a user
error becomes one line on stderr; :mod:`.commands` is what each command does
with the service, the outputs and the contest.  Nothing else in shrec_eval,
and nothing in the app, imports it."""
