"""The shell language: tokeniser, parser, expansion, redirections and the interpreter."""
