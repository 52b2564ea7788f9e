"""Facts extracted from torch 2.13 (schemas, tags, dispatch keys), shipped as data files."""
