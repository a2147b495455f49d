"""Shared by every test folder: tests/ is on sys.path (pytest inserts the folder of this file), so
the support modules here (`paths`, `pass_differential`, `lowered_differential`, ...) import by name
from any folder."""
