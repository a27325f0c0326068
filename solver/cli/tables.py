"""``yahtzee tables build|verify|list``."""

from __future__ import annotations

import sys

from . import add_quiet, add_rules, add_tables, check_threads, fit, fit_text, whole
from .remedy import build_command, error_text


def register(sub) -> None:
    p = sub.add_parser("tables", help="build, verify and list optimal-strategy tables")
    tsub = p.add_subparsers(dest="tables_command", metavar="ACTION", parser_class=type(p))
    tsub.required = True

    b = tsub.add_parser("build", help="compute tables (progress bar on stderr)")
    add_rules(b, many="rule sets to build (default: yahtzee)")
    b.add_argument(
        "--all", action="store_true", help="build every rule set with a reference value (see yahtzee rules)"
    )
    b.add_argument("--force", action="store_true", help="rebuild tables that already exist")
    b.add_argument(
        "--threads", type=whole(), default=None, help="worker threads (the result does not depend on it)"
    )
    add_quiet(b)
    b.add_argument(
        "--target",
        action="store_true",
        help="build the target tables (play for P(final >= T)) instead, for every T up to --t-max",
    )
    b.add_argument(
        "--t-max", type=whole(), default=None, metavar="T", help="largest target of --target (default 500)"
    )
    add_tables(b)
    b.set_defaults(func=run_build)

    v = tsub.add_parser(
        "verify", help="check files, checksums, reference values and the values themselves (Bellman equation)"
    )
    add_rules(v, many="rule sets to verify (default: every built table)")
    v.add_argument(
        "--sample",
        type=whole(),
        default=200,
        metavar="N",
        help="states checked against the Bellman equation, drawn at random (default 200)",
    )
    v.add_argument("--seed", type=whole(), default=None, help="seed of the sample (default: a fresh one)")
    v.add_argument(
        "--full", action="store_true", help="also rebuild each table in memory and compare bit for bit"
    )
    add_tables(v)
    v.set_defaults(func=run_verify)

    li = tsub.add_parser("list", help="show which tables are built, where, and their size")
    add_tables(li)
    li.set_defaults(func=run_list)

    d = tsub.add_parser(
        "delete",
        help="delete tables from the tables folder (a target table with its opponent model; "
        "never the table shipped with the package)",
    )
    add_rules(d, many="rule sets whose tables to delete")
    d.add_argument("--all", action="store_true", help="every rule set's tables in the folder")
    d.add_argument(
        "--target",
        action="store_true",
        help="only the target tables (and the opponent models beside them), not the value tables",
    )
    add_tables(d)
    d.set_defaults(func=run_delete)


def _selected(args, default_all_built: bool = False):
    from ..core.rules import REFERENCE_VALUES, get_rules
    from ..engine.tables import built_rule_sets

    if getattr(args, "all", False):
        return [get_rules(spec) for spec in REFERENCE_VALUES]
    if args.rules:
        return [get_rules(r) for r in args.rules]
    if default_all_built:
        return built_rule_sets(args.tables)
    return [get_rules(None)]


def run_build(args) -> int:
    from ..core.errors import TableError, UsageError
    from ..engine.estimates import build_estimate_text
    from ..engine.packed import is_packed
    from ..engine.tables import build_table, load_table, resolve_dir

    check_threads(args.threads)
    if args.t_max is not None and not args.target:
        raise UsageError("--t-max goes with --target")
    if args.target:
        return _build_targets(args)
    for rules in _selected(args):
        if not args.force:
            try:
                table = load_table(rules, args.tables)
                print(fit(f"{rules.id}: already built ({table.empty_card_value:.7f}); --force rebuilds"))
                continue
            except TableError:
                pass
        if not args.quiet and is_packed(rules):  # a long build: say how long before it starts
            print(fit(build_estimate_text(rules, args.threads)), file=sys.stderr)
        table = build_table(rules, args.tables, progress=not args.quiet, threads=args.threads)
        m = table.manifest
        print(
            fit(
                f"{rules.id}: empty-card value {table.empty_card_value:.7f}, built in "
                f"{m['build_seconds']:.2f} s ({m['build_cpu_seconds']:.2f} CPU s)"
            )
        )
    print(fit(f"tables in {resolve_dir(args.tables)} (yahtzee tables list: each file)"), file=sys.stderr)
    return 0


def _build_targets(args) -> int:
    from ..core.errors import TableError, UsageError
    from ..engine.tables import resolve_dir
    from ..engine.target import DEFAULT_T_MAX, MAX_T_MAX, build_target, load_target

    t_max = DEFAULT_T_MAX if args.t_max is None else args.t_max
    if not 1 <= t_max <= MAX_T_MAX:
        raise UsageError(f"--t-max must be from 1 to {MAX_T_MAX}, got {t_max}")
    for rules in _selected(args):
        if not args.force:
            try:
                table = load_target(rules, args.tables)
                if table.t_max >= t_max:
                    print(fit(f"{rules.id}: target table already built (targets up to {table.t_max})"))
                    continue
            except TableError:
                pass
        table = build_target(rules, args.tables, t_max=t_max, progress=not args.quiet, threads=args.threads)
        m = table.manifest
        p = m["empty_card"].get("300")
        extra = f", P(>= 300) from the empty card {p:.7f}" if p is not None else ""
        print(
            fit(
                f"{rules.id}: target table (targets up to {t_max}) built in {m['build_seconds']:.1f} s "
                f"({m['build_cpu_seconds']:.1f} CPU s){extra}"
            )
        )
    print(fit(f"tables in {resolve_dir(args.tables)} (yahtzee tables list: each file)"), file=sys.stderr)
    return 0


def run_verify(args) -> int:
    from ..engine.tables import has_shipped, resolve_dir, table_paths, table_problems
    from ..engine.target import target_paths, target_problems

    if args.sample < 0:
        from ..core.errors import UsageError

        raise UsageError(f"--sample must be at least 0, got {args.sample}")
    selected = _selected(args, default_all_built=True)
    if not selected:
        print(
            f"no tables built in {resolve_dir(args.tables)}; build them with: {build_command(every=True)}",
            file=sys.stderr,
        )
        return 1
    failures = 0
    for rules in selected:
        problems = table_problems(rules, args.tables, sample=args.sample, seed=args.seed, full=args.full)
        if target_paths(rules, args.tables)[0].exists():  # and its target table, when built
            problems += target_problems(rules, args.tables, sample=args.sample, seed=args.seed)
        if problems:
            failures += 1
            for p in problems:
                print(f"{rules.id}: FAIL {error_text(p)}")
        else:
            ref = "" if rules.reference_value is None else f" (reference {rules.reference_value:.7f})"
            shipped = not table_paths(rules, args.tables)[0].exists() and has_shipped(rules)
            print(f"{rules.id}: ok{ref}" + (" -- the table shipped with the package" if shipped else ""))
    return 1 if failures else 0


def run_delete(args) -> int:
    """``tables delete``: the files of the rule sets' tables (every kind, or with ``--target`` the
    target table and its opponent model), each named with its size; the shipped table stays."""
    from ..core.errors import UsageError
    from ..core.rules import get_rules
    from ..engine import store
    from ..engine.tables import has_shipped, resolve_dir

    if bool(args.rules) == bool(args.all):
        raise UsageError("tables delete needs --rules SPEC ... or --all (every table in the folder)")
    folder = resolve_dir(args.tables)
    if args.all:
        selected = list(dict.fromkeys(get_rules(s.rules_id) for s in store.stored(folder)))
    else:
        selected = [get_rules(r) for r in args.rules]
    kinds = (store.TARGET,) if args.target else tuple(store.KINDS.values())
    total = 0
    for rules in selected:
        removed = store.remove(kinds, rules, folder)
        what = "target table" if args.target else "tables"
        if not removed:
            print(f"{rules.id}: no {what} in {folder}")
        for path, size in removed:
            print(f"{rules.id}: deleted {path.name} ({size / 2**20:.1f} MiB)")
            total += size
        if not args.target and has_shipped(rules):
            print(f"{rules.id}: the table shipped with the package stays (read while the folder has none)")
    print(f"{total / 2**20:.1f} MiB freed in {folder}", file=sys.stderr)
    return 0


#: the width of the rule set's column of ``tables list``: a longer id goes on a line of its own
LIST_NAME = 20


def run_list(args) -> int:
    """Every table the store made in the folder -- value tables (or the package's, where the
    folder has none), target tables, opponent models -- and the known rule sets still missing."""
    from ..core.errors import MissingTableError, TableError
    from ..core.rules import RULE_SETS, get_rules
    from ..engine import store
    from ..engine.tables import has_shipped, load_table, resolve_dir, table_paths

    folder = resolve_dir(args.tables)
    print(f"tables folder: {folder}")
    there = store.stored(folder)
    listed = list(dict.fromkeys([*RULE_SETS.values(), *(get_rules(s.rules_id) for s in there)]))
    lines = []
    for rules in listed:
        npy = table_paths(rules, folder)[0]
        table = None
        try:
            table = load_table(rules, folder, check_hash=False, light=True)
        except MissingTableError:
            if has_shipped(rules):  # what is read while none is built here
                lines += _list_shipped(rules)
            elif any(s.rules_id == rules.id for s in there):
                lines += _list_row(rules.id, "no value table")
            else:
                lines += _list_row(rules.id, "missing")
        except TableError:
            lines += _list_row(rules.id, _BROKEN.format(rules.id))
        else:
            size = npy.stat().st_size / 2**20
            lines += _list_row(rules.id, f"built {size:7.1f} MiB  value {table.empty_card_value:.7f}")
        for entry in there:
            if entry.rules_id == rules.id and entry.kind is store.TARGET:
                lines += _list_target(rules, folder, entry)
            elif entry.rules_id == rules.id and entry.kind is store.OPPONENT:
                lines += _list_opponent(rules, folder, entry)
    if there:  # what the folder holds in all: every file listed above
        n_files = sum(len(s.paths) for s in there)
        size = sum(p.stat().st_size for s in there for p in s.paths)
        lines.append(f"  {n_files} files, {size / 2**20:.1f} MiB in all (yahtzee tables delete removes them)")
    print(fit_text("\n".join(lines), hang=LIST_NAME + 3))
    return 0


_BROKEN = "broken  (yahtzee tables verify --rules {} says why)"


def _list_shipped(rules) -> list[str]:
    """The row of the table shipped with the package (read while the folder has none)."""
    from ..core.errors import TableError
    from ..engine.tables import load_shipped

    try:
        table = load_shipped(rules, check_hash=False, light=True)
    except TableError:
        return _list_row(rules.id, _BROKEN.format(rules.id))
    size = table.path.stat().st_size / 2**20
    return _list_row(rules.id, f"shipped {size:7.1f} MiB  value {table.empty_card_value:.7f}  (package)")


def _list_row(name: str, text: str) -> list[str]:
    """A row of ``tables list`` within 80 columns: the name, then what is there."""
    if len(name) > LIST_NAME:
        return [f"  {name}", f"  {'':<{LIST_NAME}} {text}"]
    return [f"  {name:<{LIST_NAME}} {text}"]


def _list_target(rules, folder, entry) -> list[str]:
    """The row of a rule set's target table (``entry``: the store's :class:`~solver.engine.store.Stored`)."""
    from ..core.errors import TableError
    from ..engine.target import load_target

    name = f"{rules.id} --target"
    try:
        table = load_target(rules, folder, light=True)
    except TableError:
        return _list_row(name, _BROKEN.format(rules.id))
    p300 = table.manifest.get("empty_card", {}).get("300")
    extra = f"  P(>=300) {p300:.7f}" if p300 is not None else ""
    return _list_row(name, f"built {entry.size / 2**20:7.1f} MiB  targets up to {table.t_max}{extra}")


def _list_opponent(rules, folder, entry) -> list[str]:
    """The row of a rule set's opponent model (the win bots' cache: solved again when stale)."""
    from ..core.errors import TableError
    from ..engine import store
    from ..engine.opponent import residual_settings
    from ..engine.tables import find_table

    try:
        sha = find_table(rules, folder, check_hash=False, light=True).manifest.sha256
        store.open_files(store.OPPONENT, rules, folder, settings=residual_settings(sha)).close()
        state = "built"
    except TableError:  # another value table's, or damaged: the next win bot solves it again
        state = "stale"
    return _list_row(f"{rules.id} opponent", f"{state} {entry.size / 2**20:7.1f} MiB  the win bots' model")
