"""Where each option of ``dorf serve`` comes from: a flag, else the environment, else a config file,
else its default.

Every option has a variable, read off the parser itself (so an option added tomorrow has one
too): ``--ai-workers`` is ``DORF_AI_WORKERS``.  A config file (``--config FILE`` or
``$DORF_CONFIG``) is TOML whose keys are the options' names (``ai-workers = 0``; ``ai_workers``
is read the same).  A bad value in either is one line naming the variable or the file and key
(:class:`SettingsError`); an empty variable counts as unset.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> _ = parser.add_argument("--port", type=int, default=8000)
>>> _ = parser.add_argument("--allowed-host", action="append", default=[])
>>> _ = parser.add_argument("--metrics-token", default=None)
>>> environ = {"DORF_PORT": "8080", "DORF_METRICS_TOKEN": "abc"}
>>> found = settle(parser, {}, environ, {"allowed-host": ["a.example"]})
>>> found.values["port"], found.sources["port"], found.values["allowed_host"]
(8080, 'DORF_PORT', ['a.example'])
>>> print(describe(parser, found))
port = 8080                   # DORF_PORT
allowed-host = ["a.example"]  # config file
metrics-token = "***"         # DORF_METRICS_TOKEN

This module reads only the standard library: it knows the options by their parser, not by name.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: The variables' common start: ``--db`` is ``DORF_DB``.
PREFIX = "DORF_"
#: An option whose name holds one of these words has its value hidden in the printed configuration.
SECRET_WORDS = ("token", "secret", "password")
#: Where a value came from when nothing set it.
DEFAULT = "default"
#: How an environment variable says yes or no to a flag (``DORF_ALLOW_BOT_COMMANDS=1``).
YES = ("1", "true", "yes", "on")
NO = ("0", "false", "no", "off")


class SettingsError(ValueError):
    """A value of the environment or the config file that cannot be used; the message is one line."""


def variable(name: str) -> str:
    """The environment variable of option ``name``.

    >>> variable("--max-connections-per-address")
    'DORF_MAX_CONNECTIONS_PER_ADDRESS'
    """
    return PREFIX + name.lstrip("-").replace("-", "_").upper()


def is_secret(name: str) -> bool:
    """Whether option ``name``'s value is hidden when the configuration is printed.

    >>> is_secret("metrics-token"), is_secret("admin-secret"), is_secret("db")
    (True, True, False)
    """
    return any(word in name.lower() for word in SECRET_WORDS)


def hide_password(text: str) -> str:
    """``text`` with the password of a URL in it replaced by ``***`` (any other text unchanged).

    >>> hide_password("postgresql://dorf:s3cret@db.example:5432/dorf")
    'postgresql://dorf:***@db.example:5432/dorf'
    >>> hide_password("/var/lib/dorf/dorf.sqlite3")
    '/var/lib/dorf/dorf.sqlite3'
    """
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return text
    if not password:
        return text
    user, _, where = parts.netloc.rpartition("@")
    name = user.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{name}:***@{where}"))


@dataclass(frozen=True)
class Option:
    """One option of the parser that a variable or a config file may set."""

    action: argparse.Action

    @property
    def name(self) -> str:
        """The option's long name without its dashes: ``ai-workers``."""
        longs = [text for text in self.action.option_strings if text.startswith("--")]
        return (longs or self.action.option_strings)[0].lstrip("-")

    @property
    def dest(self) -> str:
        return self.action.dest

    @property
    def variable(self) -> str:
        return variable(self.name)

    @property
    def is_flag(self) -> bool:
        """An option that takes no value (``--allow-bot-commands``)."""
        return self.action.nargs == 0

    @property
    def is_list(self) -> bool:
        """A repeatable option (``--allowed-host A --allowed-host B``)."""
        return isinstance(self.action, argparse._AppendAction)

    @property
    def default(self) -> Any:
        value = self.action.default
        if isinstance(value, str) and self.action.type is not None:
            return self.convert(value, f"the default of --{self.name}")
        return value

    def convert(self, text: str, where: str) -> Any:
        """``text`` read as the option's flag reads it; :class:`SettingsError` naming ``where`` if it
        cannot be."""
        shown = "" if is_secret(self.name) else f"={text}"
        cast = self.action.type
        try:
            value = text if cast is None else cast(text)  # type: ignore[operator]
        except argparse.ArgumentTypeError as exc:
            raise SettingsError(f"{where}{shown}: {exc}") from None
        except (TypeError, ValueError):
            raise SettingsError(f"{where}{shown}: not a value --{self.name} takes") from None
        choices = self.action.choices
        if choices is not None and value not in choices:
            raise SettingsError(f"{where}{shown}: not one of {', '.join(map(str, choices))}")
        return value


#: Options that are about this run itself, not settings: never from a variable or a file.
NOT_SETTINGS = frozenset({"help", "print-config", "version"})


def options(parser: argparse.ArgumentParser) -> list[Option]:
    """The parser's options that a variable or a config file may set, in the parser's order."""
    found = []
    for action in parser._actions:
        option = Option(action)
        if not action.option_strings or option.name in NOT_SETTINGS:
            continue
        if action.nargs in (None, 0) or option.is_list:
            found.append(option)
    return found


@dataclass
class Settled:
    """Each option's value (by ``dest``) and where it came from: ``--port``, ``DORF_PORT``, the
    config file's path, or ``default``."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def _from_environment(option: Option, text: str) -> Any:
    where = option.variable
    if option.is_flag:
        word = text.strip().lower()
        if word in YES:
            return option.action.const
        if word in NO:
            return option.default
        raise SettingsError(f"{where}={text}: say {' or '.join(YES[:2])} or {' or '.join(NO[:2])}")
    if option.is_list:
        return [option.convert(part, where) for part in re.split(r"[\s,]+", text.strip()) if part]
    return option.convert(text, where)


def _from_file(option: Option, value: Any, where: str) -> Any:
    if option.is_flag:
        if not isinstance(value, bool):
            raise SettingsError(f"{where}: true or false, not {value!r}")
        return option.action.const if value else option.default
    if option.is_list:
        items = value if isinstance(value, list) else [value]
        return [option.convert(_scalar(item, where), where) for item in items]
    return option.convert(_scalar(value, where), where)


def _scalar(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise SettingsError(f"{where}: a string or a number, not {value!r}")


def read_file(path: str | Path) -> dict[str, Any]:
    """A config file's table; :class:`SettingsError` (one line) if it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise SettingsError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {path}: not TOML: {exc}") from None


def settle(
    parser: argparse.ArgumentParser,
    given: Mapping[str, Any],
    environ: Mapping[str, str],
    table: Mapping[str, Any] | None = None,
    *,
    file_name: str = "config file",
) -> Settled:
    """Every option of ``parser``: ``given`` (the flags on the command line, by ``dest``) first,
    then ``environ``'s variables, then ``table`` (a config file read by :func:`read_file`,
    called ``file_name`` in messages and sources), then the defaults."""
    known = options(parser)
    by_key: dict[str, Option] = {}
    for option in known:
        by_key[option.name] = option
        by_key[option.name.replace("-", "_")] = option
    from_file: dict[str, Any] = {}
    for key, value in (table or {}).items():
        found_option = by_key.get(key)
        if found_option is None or found_option.name == "config":
            raise SettingsError(f"{file_name}: no option {key!r} (dorf serve --help lists them)")
        if found_option.dest in from_file:
            raise SettingsError(f"{file_name}: {found_option.name!r} given twice")
        from_file[found_option.dest] = _from_file(found_option, value, f"{file_name}: {key}")
    found = Settled()
    for option in known:
        dest = option.dest
        text = environ.get(option.variable, "")
        if dest in given:
            found.values[dest], found.sources[dest] = given[dest], f"--{option.name}"
        elif text.strip():
            found.values[dest], found.sources[dest] = _from_environment(option, text), option.variable
        elif dest in from_file:
            found.values[dest], found.sources[dest] = from_file[dest], file_name
        else:
            found.values[dest], found.sources[dest] = option.default, DEFAULT
    return found


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return "None" if value is None else json.dumps(str(value), ensure_ascii=False)


def _shown(option: Option, value: Any) -> Any:
    if is_secret(option.name):
        return "***"
    if isinstance(value, list | tuple):
        return [_shown(option, item) for item in value]
    if isinstance(value, str):
        return hide_password(value)
    return value


def lines(parser: argparse.ArgumentParser, found: Settled) -> Iterator[str]:
    """The settled configuration as a TOML file, each line saying where its value came from;
    secrets hidden (a name with a :data:`SECRET_WORDS` word, a URL's password)."""
    said = []
    for option in options(parser):
        dest = option.dest
        if dest not in found.values:
            continue
        value, source = found.values[dest], found.sources[dest]
        text = f"{option.name} = {_toml(_shown(option, value))}"
        said.append(("# " + text.replace(" = None", " is not set") if value is None else text, source))
    width = max((len(text) for text, _ in said), default=0)
    for text, source in said:
        yield f"{text.ljust(width)}  # {source}"


def describe(parser: argparse.ArgumentParser, found: Settled) -> str:
    """:func:`lines` as one text."""
    return "\n".join(lines(parser, found))


def explicit(parser: argparse.ArgumentParser, argv: Sequence[str]) -> dict[str, Any]:
    """The options ``argv`` gives ``parser`` itself, by ``dest`` (read again with no defaults, so an
    option absent from the command line is absent here).  ``parser`` is changed: use a fresh one."""
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    return vars(parser.parse_args(list(argv)))
