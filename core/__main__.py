from .cli.parser import entry_point

entry_point()
