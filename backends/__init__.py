"""Backend plugins shipped with refimpl, each found through the `refimpl.backends` entry points."""
