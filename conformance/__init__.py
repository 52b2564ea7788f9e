"""The conformance suite: each layer of refimpl held against the installed torch."""
