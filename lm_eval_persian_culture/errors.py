"""The pack's user errors: one base class at the bottom of the package.

Every error a user can fix (a path, a task name, a setting, a data file, a judge or embedding model that
cannot be reached or loaded) subclasses :class:`PackUserError`, so the command-line guard prints its
message alone and exits with status 2, with no list of error classes anywhere. Each subclass also keeps
the built-in base it always had (``ValueError``, ``FileNotFoundError``, ...) so ``except`` clauses written
against those still catch it.
"""

from __future__ import annotations

EXIT_USER_ERROR = 2


class PackUserError(Exception):
    """An error the user can fix; its message names the file, row, field or setting to change."""


class UserInputError(PackUserError, ValueError):
    """A command-line input (a path for ``report`` / ``rejudge``, a task name, --metadata) is wrong."""


__all__ = ["EXIT_USER_ERROR", "PackUserError", "UserInputError"]
