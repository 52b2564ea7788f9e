"""PyTorch's OpInfo database run against a target (torch itself, or refimpl on a backend).

convert: torch values <-> target values; runner: one case, compared with torch; select:
families and the CI selection; xfails: expected-failure lists; report: the summary.
"""
