"""The daemon's units and types (``salus.v1.Catalogue/Get``), read once per connection.

The client keeps no table and no grammar of its own: unit symbols, SI prefixes and their
spellings, and the registered types come from the daemon a store is connected to, and every unit
string is parsed by the daemon (``salus.v1.Catalogue/DescribeUnits``): once per string per
connection, the units the catalogue names all at once when the connection opens. The
module-level helpers (:func:`salus.units.convert`, :func:`salus.identifier`) use the catalogue
of the most recently opened connection.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from ._proto.salus.v1 import catalogue_pb2, plugin_pb2

__all__ = ["Catalogue", "current"]


class Catalogue:
    """One daemon's catalogue: its unit table and its types."""

    def __init__(
        self,
        response: catalogue_pb2.CatalogueResponse,
        describe: Optional[Callable[[list[str]], list[catalogue_pb2.UnitDescription]]] = None,
    ) -> None:
        #: The response as the daemon sent it.
        self.response = response
        #: Unit string -> the daemon's description of it (a meaning or a problem), asked once.
        self.descriptions: dict[str, catalogue_pb2.UnitDescription] = {}
        self._describe = describe
        #: Symbol spelling ("L", "l", "g") -> the named unit.
        self.symbols: dict[str, catalogue_pb2.UnitSymbol] = {}
        for symbol in response.symbols:
            for spelling in (symbol.symbol, *symbol.other_spellings):
                self.symbols[spelling] = symbol
        #: (spelling, power of ten), two-character spellings first, as the daemon tries them.
        self.prefixes: list[tuple[str, int]] = sorted(
            ((spelling, prefix.power_of_ten) for prefix in response.prefixes for spelling in (prefix.symbol, *prefix.other_spellings)),
            key=lambda item: -len(item[0]),
        )
        #: Every registered type, by identifier.
        self.types: dict[str, plugin_pb2.TypeDefinition] = {t.identifier: t for t in response.types}
        from .types import short_name

        #: Lower-cased short name -> identifier, for the sample types (characteristics are not samples).
        self.short_names: dict[str, str] = {
            short_name(t.identifier).lower(): t.identifier
            for t in response.types
            if t.kind != plugin_pb2.OBJECT_KIND_CHARACTERISTIC
        }

    def remember(self, descriptions: Iterable[catalogue_pb2.UnitDescription]) -> None:
        """Keeps the daemon's descriptions of unit strings for this connection."""
        for description in descriptions:
            self.descriptions[description.unit] = description

    def describe(self, *units: str) -> list[catalogue_pb2.UnitDescription]:
        """The daemon's description of each unit string; the strings not asked before are asked in one call."""
        missing = list(dict.fromkeys(unit for unit in units if unit not in self.descriptions))
        if missing:
            if self._describe is None:
                raise RuntimeError(
                    f"units: {missing[0]!r} has not been described by the daemon; expected a catalogue read by salus.connect()"
                )
            self.remember(self._describe(missing))
        return [self.descriptions[unit] for unit in units]

    def convert(self, value: float, unit: str, to: str) -> float:
        """``value`` in ``unit``, expressed in ``to``, with this daemon's table."""
        from .units import _convert

        return _convert(self, value, unit, to)


_current: Optional[Catalogue] = None


def _set_current(catalogue: Catalogue) -> None:
    global _current
    _current = catalogue


def current(what: str) -> Catalogue:
    """The catalogue of the most recently opened connection; ``what`` says what needed it."""
    if _current is None:
        raise RuntimeError(
            f"{what} needs the daemon's catalogue of units and types, read when a connection opens; "
            "expected salus.connect() (or salus.sync.connect()) first"
        )
    return _current


def _current_types(what: str) -> dict[str, str]:
    return current(what).short_names
