from unjudged.cli import entry

entry()
