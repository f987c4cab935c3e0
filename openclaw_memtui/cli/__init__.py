"""The command line: parse, call the application layer, print (one module per command group)."""
