"""Whether a function leads to another definition: a call in its body, or a decorator on it, names that definition.

A statement that left the reviewed function is *moved* only when the function now leads to its new home.
The name must resolve there, statically: ``self.helper(...)`` to a method of the function's own class (or
of a base class), ``helper(...)`` to a function nested in it, defined in its module or imported into it (also through a local bound
to it first: ``interface = eager_attention ; interface(...)``), or to a function a lookup table holds when the local
was taken from it (``interface = TABLE [ key ]``, see :mod:`.tables`), ``@decorator`` likewise. A same-named function in an
unrelated module is not reached.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from infralens.drift.lock.entries import Place
from infralens.drift.lock.facts import body_of
from infralens.drift.match.forwarding import MAX_HOPS, base_names, class_named
from infralens.drift.match.names import defining, defining_file
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Filter
from infralens.drift.match.tables import registry_keys, table_entries, table_functions
from infralens.drift.match.texts import statement_tree
from infralens.source import Definition, ModuleIndex, SourceFile

_RECEIVERS = ("self", "cls")
_HELD = re.compile(r"^self \. (\w+) = (\w+) \(")
"""``self . NAME = CLASS ( ...`` in an ``__init__``: the attribute holds an instance of that class."""
RUN_ON_CALL = ("__call__", "forward")
"""What calling an instance runs: its class's ``__call__``, and ``forward``, which a torch module's ``__call__`` runs."""


@dataclass(frozen=True)
class Calls:
    """The names a function's body calls: on ``self``/``cls`` (methods) and bare (functions)."""

    methods: frozenset[str]
    functions: frozenset[str]
    inherited: frozenset[str] = frozenset()
    """Methods called on ``super ( )``: they resolve to a base class's definition, never the class's own."""
    on_objects: frozenset[str] = frozenset()
    """Methods called on another object (``transformer . load_lora_adapter (``): the class is not known statically."""
    tables: frozenset[str] = frozenset()
    """Names of lookup tables a called local or ``self`` attribute was taken from (``f = TABLE [ key ] ; f ( )``)."""
    read: frozenset[str] = frozenset()
    """Attributes of ``self``/``cls`` read without a call (``align_to = self . _align_to``): a property, a method handed on."""


def calls_in(texts: list[str]) -> Calls:
    """The resolvable calls in normalised statement texts (``obj . name (`` on other objects is left out)."""
    methods: set[str] = set()
    functions: set[str] = set()
    inherited: set[str] = set()
    on_objects: set[str] = set()
    aliases: dict[str, set[str]] = {}
    looked_up: dict[str, set[str]] = {}
    read: set[str] = set()
    for text in texts:
        tokens = text.split(" ")
        alias = _local_alias(tokens)
        if alias is not None:
            aliases.setdefault(alias[0], set()).update(alias[1])
        lookup = _table_lookup(tokens)
        if lookup is not None:
            looked_up.setdefault(lookup[0], set()).add(lookup[1])
        read.update(t for i, t in enumerate(tokens) if i >= 2 and tokens[i - 1] == "." and tokens[i - 2] in _RECEIVERS and tokens[i + 1 : i + 2] != ["("])
        for i, token in enumerate(tokens[:-1]):
            if tokens[i + 1] != "(" or not token.isidentifier():
                continue
            before = tokens[i - 1] if i else ""
            if before == ".":
                if i >= 2 and tokens[i - 2] in _RECEIVERS:
                    methods.add(token)
                elif i >= 4 and tokens[i - 4 : i - 1] == ["super", "(", ")"]:
                    inherited.add(token)
                elif i >= 2:
                    on_objects.add(token)
            elif before not in ("def", "class"):
                functions.add(token)
    for name in list(functions):  # a local bound to a function and then called calls that function
        functions.update(aliases.get(name, ()))
    tables = {table for name in functions for table in looked_up.get(name, ())}
    tables.update(table for name in methods for table in looked_up.get(f"self . {name}", ()))
    return Calls(frozenset(methods), frozenset(functions), frozenset(inherited), frozenset(on_objects), frozenset(tables), frozenset(read - methods))


def _table_lookup(tokens: list[str]) -> tuple[str, str] | None:
    """``(local, table)`` for ``local = TABLE [ key ]`` or ``local = TABLE . get ( key )`` (``local`` a bare name,
    annotated or not, or ``self . name``; ``TABLE`` a bare name)."""
    if "=" not in tokens:
        return None
    equals = tokens.index("=")
    own_attribute = equals == 3 and tokens[:2] == ["self", "."]
    if not tokens[0].isidentifier() or not (equals == 1 or own_attribute or tokens[1] == ":"):
        return None
    value = tokens[equals + 1 :]
    looked_up = len(value) >= 4 and value[1] == "[" and value[-1] == "]"
    got = len(value) >= 6 and value[1:4] == [".", "get", "("] and value[-1] == ")"
    if not value[0].isidentifier() or not (looked_up or got):
        return None
    return (" ".join(tokens[:3]) if own_attribute else tokens[0]), value[0]


def _local_alias(tokens: list[str]) -> tuple[str, set[str]] | None:
    """``(local, functions)`` for ``local = function`` or ``local : T = function`` (a bare name on each side), and for a
    conditional alias: ``local = f if c else g`` (both), or a lookup with a default, ``local = table . get ( key , f )``
    (the names passed, never the one called); else None."""
    if len(tokens) < 3 or not tokens[0].isidentifier() or "=" not in tokens:
        return None
    equals = tokens.index("=")
    if equals != 1 and tokens[1] != ":":
        return None
    if equals == len(tokens) - 2 and tokens[-1].isidentifier():
        return tokens[0], {tokens[-1]}
    tree = statement_tree(" ".join(tokens))
    value = tree.value if isinstance(tree, (ast.Assign, ast.AnnAssign)) else None
    if value is None:
        return None
    return tokens[0], _named(value)


def _named(value: ast.expr) -> set[str]:
    """The bare names an alias's value may evaluate to: the branches of a conditional expression, the positional
    arguments of a call (``get_interface ( name , eager_attention_forward )``), recursively."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.IfExp):
        return _named(value.body) | _named(value.orelse)
    if isinstance(value, ast.Call):
        return {name for argument in value.args for name in _named(argument)}
    return set()


KEYED = "is the entry its class's name keys in the table a property it calls returns from"
"""How a trace says a place is reached through :meth:`Reach.keyed_functions` (filter ``class-keyed-entry``)."""


class Reach:
    """Where one function leads: its calls (read once) and its decorators, resolved from its module."""

    def __init__(
        self, reader: TreeReader, source: SourceFile, index: ModuleIndex, definition: Definition, *, held_since: TreeReader | None = None, keyed: bool = False
    ) -> None:
        """``held_since``: the reviewed release, when rule ``instance-called`` (:meth:`held_methods`) is on; ``keyed``: when
        filter ``class-keyed-entry`` (:meth:`keyed_functions`) is."""
        self.reader, self.source, self.index, self.definition, self.held_since = reader, source, index, definition, held_since
        self.keyed = keyed
        self.scopes = _import_scopes(definition)
        self._calls: Calls | None = None
        self._bases: list[tuple[str, str]] | None = None
        self._tables: list[tuple[str, str]] | None = None
        self._held: list[tuple[str, str]] | None = None
        self._keys: list[tuple[str, str, str]] | None = None
        self._keyed: list[tuple[str, str]] | None = None
        self._entries: list[tuple[str, str, str]] | None = None

    @property
    def calls(self) -> Calls:
        if self._calls is None:
            body = self.index.statements_within(self.definition.start_line, self.definition.end_line)
            self._calls = calls_in([s.text for s in body])
        return self._calls

    def leads_to(self, place: Place) -> bool:
        """Whether the function calls, or is decorated by, the definition holding ``place``."""
        home = (place.target or place.scope).split(".")
        if not home[0] or place.target == self.definition.qualname:
            return False
        for decorator in self.definition.decorators:
            if "." not in decorator and decorator == home[0] and self._defined_in(decorator, place.relpath):
                return True  # the decorator's own body and the wrappers nested in it
        own = self.definition.qualname.split(".")
        if place.relpath == self.source.relpath and home[: len(own)] == own and len(home) > len(own):
            return home[len(own)] in self.calls.functions  # a function nested in this one
        if home[-1] in self.calls.methods and len(home) == 2 and self._is_own_class(home[0], place.relpath):
            return True
        if home[-1] in self.calls.read and len(home) == 2 and self._is_own_class(home[0], place.relpath) and self._is_property(place):
            return True  # a property of its class it reads (a method read without a call is only handed on)
        if home[-1] in self.calls.inherited and len(home) == 2 and self._is_base_class(home[0], place.relpath):
            return True  # super().name(...) runs a base class's method
        if home[0] in self.calls.functions and self._defined_in(home[0], place.relpath):
            return True
        if self.runs_held(place):
            return True  # what calling an instance one of its attributes holds runs
        if (place.relpath, home[0]) in self.keyed_functions():
            return True  # the entry its own class's name keys in the table a property it calls returns from
        return (place.relpath, home[0]) in self.table_functions()  # a function a lookup table it dispatches through holds

    def table_functions(self) -> list[tuple[str, str]]:
        """``(relpath, name)`` of the functions the lookup tables it dispatches through hold (read once; see :mod:`.tables`)."""
        if self._tables is None:
            self._tables = [f for table in sorted(self.calls.tables) for f in table_functions(self.reader, self.source.relpath, table, self.scopes)]
        return self._tables

    def _property_tables(self) -> list[tuple[str, str, frozenset[str]]]:
        """``(relpath, table, scopes)`` for each method the target calls on ``self`` that its own class does not define and
        exactly one class of the tree does, as a property whose body returns ``TABLE [ key ]``: calling it calls a
        function of that table (``self . loss_function ( ... )``, the property returning ``LOSS_MAPPING [ loss_type ]``)."""
        found = []
        for name in sorted(self.calls.methods - _own_methods(self)):
            sole = self.reader.sole_property(name)
            if sole is None or (indexed := self.reader.indexed(sole[0])) is None:
                continue
            for statement in body_of(indexed[1], sole[1]):
                tokens = statement.text.split(" ")
                if tokens[0] == "return" and len(tokens) > 3 and tokens[1].isidentifier() and tokens[2] == "[" and tokens[-1] == "]":
                    found.append((sole[0], tokens[1], frozenset({""})))
        return found

    def keyed_functions(self) -> list[tuple[str, str]]:
        """``(relpath, name)`` of the entry of a :meth:`_property_tables` table that the target's class picks by its own name:
        the key equal to the class's name, else the longest key the name ends with (``LOSS_MAPPING [ loss_type ]``, the
        type taken from the class name: ``RTDetrForObjectDetection`` runs ``RTDetrForObjectDetectionLoss``; filter
        ``class-keyed-entry``, none when it is off). One specific function, unlike the whole table
        (:meth:`registry_functions`), so a move or a split may go there too. Read once."""
        owner = self.definition.qualname.split(".")[0] if "." in self.definition.qualname and self.keyed else ""
        if self._keyed is None and not owner:
            self._keyed = []  # off, or a module function: no class name to key by (no file read)
        if self._keyed is None:
            entries = self._property_entries()
            keys = [key for key, _, _ in entries if key and owner.endswith(key)]
            best = max(keys, key=len) if owner and keys else None
            self._keyed = list(dict.fromkeys((home, name) for key, home, name in entries if key == best))
        return self._keyed

    def held_methods(self) -> list[tuple[str, str]]:
        """``(relpath, qualname)`` of what the target runs by calling an attribute of its class that the class's
        ``__init__`` set to an instance of a class found statically (``self . experts = MixtralExperts ( config )``, then
        ``self . experts ( ... )``): that class's nearest ``__call__`` and ``forward``, when new since the review (work the
        target newly hands to an object, never a module it used already; rule ``instance-called``; read once)."""
        if self._held is None:
            self._held = new_held_methods(self, self.held_since) if self.held_since is not None else []
        return self._held

    def registry_functions(self) -> list[tuple[str, str]]:
        """``(relpath, name)`` of the functions it may run through an object's lookup, known only as a set: those the registry
        objects it dispatches through hold (:func:`.tables.registry_keys`), and those of the table a property it
        calls returns from (:meth:`_property_tables`) when its class's name keys none of them. Candidate homes of an edit, never of a move or a split."""
        found = [(relpath, name) for _, relpath, name in self.registry_keys()]
        if not self.keyed_functions():  # else the class's own entry is reached (:meth:`keyed_functions`), not the whole table
            found += [(home, name) for _, home, name in self._property_entries()]
        return list(dict.fromkeys(found))

    def _property_entries(self) -> list[tuple[str, str, str]]:
        """``(key, relpath, name)`` of every entry of the :meth:`_property_tables` tables (:func:`.tables.table_entries`;
        read once)."""
        if self._entries is None:
            self._entries = [e for relpath, table, scopes in self._property_tables() for e in table_entries(self.reader, relpath, table, scopes)]
        return self._entries

    def registry_keys(self) -> list[tuple[str, str, str]]:
        """``(key, relpath, name)`` of the functions the registry objects it dispatches through hold, by key
        (:func:`.tables.registry_keys`; read once)."""
        if self._keys is None:
            self._keys = [k for table in sorted(self.calls.tables) for k in registry_keys(self.reader, self.source.relpath, table, self.scopes)]
        return self._keys

    def runs_held(self, place: Place) -> bool:
        """Whether ``place`` lies in a method :meth:`held_methods` names."""
        return (place.relpath, place.target or place.scope) in self.held_methods()

    def runs_keyed(self, place: Place) -> bool:
        """Whether ``place`` lies in the function :meth:`keyed_functions` names."""
        return (place.relpath, (place.target or place.scope).split(".")[0]) in self.keyed_functions()

    def widened_to(self, place: Place) -> list[tuple[Filter, str]]:
        """The filters that widen the reach to ``place`` (``instance-called``, ``class-keyed-entry``), each with how a
        trace says so."""
        found = [(Filter.INSTANCE_CALLED, "runs when the target calls an instance its class holds")] if self.runs_held(place) else []
        return found + ([(Filter.CLASS_KEYED_ENTRY, KEYED)] if self.runs_keyed(place) else [])

    def calls_by_name(self, place: Place) -> bool:
        """Whether the function calls, on some other object, a method named like the one holding ``place``.

        Weaker than :meth:`leads_to` (the object's class is not known), so the matcher takes it only when exactly one
        place with the statement's text is such a method."""
        home = (place.target or place.scope).split(".")
        return len(home) >= 2 and not home[-1].startswith("__") and home[-1] in self.calls.on_objects

    def _defined_in(self, name: str, relpath: str) -> bool:
        return defining_file(self.reader, self.source.relpath, name, self.scopes, stars=True) == relpath

    def base_classes(self) -> list[tuple[str, str]]:
        """(name, defining file) of each direct base class of the function's class that resolves statically (resolved once)."""
        if self._bases is None:
            owner = class_named(self.index, self.definition.qualname.split(".")[0])
            self._bases = []
            if owner is not None and "." in self.definition.qualname:
                for name in base_names(self.index, owner):
                    relpath = defining_file(self.reader, self.source.relpath, name)
                    if relpath is not None:
                        self._bases.append((name, relpath))
        return self._bases

    def _is_base_class(self, class_name: str, relpath: str) -> bool:
        return (class_name, relpath) in self.base_classes()

    def _is_property(self, place: Place) -> bool:
        """Whether the definition holding ``place`` is a property's getter."""
        indexed = self.reader.indexed(place.relpath)
        found = [d for d in indexed[1].definitions if d.qualname == place.target] if indexed is not None else []
        return any(d.accessor is None and any(name.endswith("property") for name in d.decorators) for d in found)

    def _is_own_class(self, class_name: str, relpath: str) -> bool:
        """Whether ``class_name`` (defined in ``relpath``) is the class this function is a method of, or one of its bases."""
        owner_name = self.definition.qualname.split(".")[0]
        owner = class_named(self.index, owner_name)
        if owner is None:
            return False
        if class_name == owner_name:
            return relpath == self.source.relpath
        return class_name in base_names(self.index, owner) and defining_file(self.reader, self.source.relpath, class_name) == relpath


def _import_scopes(definition: Definition) -> frozenset[str]:
    """Scopes whose imports the function sees: the module, its enclosing definitions and itself."""
    parts = definition.qualname.split(".")
    return frozenset({"", *(".".join(parts[:n]) for n in range(1, len(parts) + 1))})


def new_held_methods(reach: Reach, since: TreeReader) -> list[tuple[str, str]]:
    """:meth:`Reach.held_methods` for a reach built without ``held_since``: those of :func:`_held_methods` the reviewed
    release ``since`` did not define."""
    return [method for method in _held_methods(reach) if not defined_in(since, *method)]


def _own_methods(reach: Reach) -> set[str]:
    """The names of the methods the target's own class defines in its module (of the module's functions, for a function)."""
    owner = reach.definition.qualname.rpartition(".")[0]
    return {d.qualname.rpartition(".")[2] for d in reach.index.definitions if d.qualname.rpartition(".")[0] == owner}


def _held_methods(reach: Reach) -> list[tuple[str, str]]:
    owner = reach.definition.qualname.rpartition(".")[0]
    init = next((d for d in reach.index.definitions if d.qualname == f"{owner}.__init__"), None)
    if not owner or "." in owner or init is None or class_named(reach.index, owner) is None:
        return []
    wanted = reach.calls.methods - _own_methods(reach)
    found: list[tuple[str, str]] = []
    for statement in reach.index.statements_within(init.start_line, init.end_line) if wanted else []:
        match = _HELD.match(statement.text)
        held = defining(reach.reader, reach.source.relpath, match.group(2)) if match and match.group(1) in wanted else None
        if held is not None:
            found.extend(method for method in _run_on_call(reach.reader, *held) if method not in found)
    return found


def _run_on_call(reader: TreeReader, relpath: str, name: str) -> list[tuple[str, str]]:
    """The nearest :data:`RUN_ON_CALL` methods of class ``name`` (defined in ``relpath``) and its bases found in the tree."""
    nearest: dict[str, tuple[str, str]] = {}
    todo: list[tuple[str, str]] = [(relpath, name)]
    seen: set[tuple[str, str]] = set()
    while todo and len(seen) <= MAX_HOPS:
        at = todo.pop(0)
        indexed = reader.indexed(at[0]) if at not in seen else None
        klass = class_named(indexed[1], at[1]) if indexed is not None else None
        seen.add(at)
        if indexed is None or klass is None:
            continue
        defined = {d.qualname for d in indexed[1].definitions}
        for method in RUN_ON_CALL:
            if method not in nearest and f"{at[1]}.{method}" in defined:
                nearest[method] = (at[0], f"{at[1]}.{method}")
        todo.extend(found for base in base_names(indexed[1], klass) if (found := defining(reader, at[0], base)) is not None)
    return list(nearest.values())
