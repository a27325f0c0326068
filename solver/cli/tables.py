"""``yahtzee tables build|verify|list``."""

from __future__ import annotations

import sys

from . import add_quiet, add_rules, add_tables, check_threads, fit_text, whole


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
                print(
                    f"{rules.id}: already built ({table.empty_card_value:.7f}) in {table.path}; --force rebuilds"
                )
                continue
            except TableError:
                pass
        table = build_table(rules, args.tables, progress=not args.quiet, threads=args.threads)
        m = table.manifest
        print(
            f"{rules.id}: empty-card value {table.empty_card_value:.7f}, built in {m['build_seconds']:.2f} s "
            f"({m['build_cpu_seconds']:.2f} CPU s) -> {table.path}"
        )
    print(f"tables in {resolve_dir(args.tables)}", file=sys.stderr)
    return 0


def _build_targets(args) -> int:
    from ..core.errors import TableError, UsageError
    from ..engine.target import DEFAULT_T_MAX, MAX_T_MAX, build_target, load_target

    t_max = DEFAULT_T_MAX if args.t_max is None else args.t_max
    if not 1 <= t_max <= MAX_T_MAX:
        raise UsageError(f"--t-max must be from 1 to {MAX_T_MAX}, got {t_max}")
    for rules in _selected(args):
        if not args.force:
            try:
                table = load_target(rules, args.tables)
                if table.t_max >= t_max:
                    print(
                        f"{rules.id}: target table already built (targets up to {table.t_max}) in {table.path}"
                    )
                    continue
            except TableError:
                pass
        table = build_target(rules, args.tables, t_max=t_max, progress=not args.quiet, threads=args.threads)
        m = table.manifest
        p = m["empty_card"].get("300")
        extra = f", P(>= 300) from the empty card {p:.7f}" if p is not None else ""
        print(
            f"{rules.id}: target table (targets up to {t_max}) built in {m['build_seconds']:.1f} s "
            f"({m['build_cpu_seconds']:.1f} CPU s){extra} -> {table.path}"
        )
    return 0


def run_verify(args) -> int:
    from ..engine.tables import resolve_dir, verify_table
    from ..engine.target import target_paths, verify_target

    if args.sample < 0:
        from ..core.errors import UsageError

        raise UsageError(f"--sample must be at least 0, got {args.sample}")
    selected = _selected(args, default_all_built=True)
    if not selected:
        print(
            f"no tables built in {resolve_dir(args.tables)}; build them with: yahtzee tables build --all",
            file=sys.stderr,
        )
        return 1
    failures = 0
    for rules in selected:
        problems = verify_table(rules, args.tables, sample=args.sample, seed=args.seed, full=args.full)
        if target_paths(rules, args.tables)[0].exists():  # and its target table, when built
            problems += verify_target(rules, args.tables, sample=args.sample, seed=args.seed)
        if problems:
            failures += 1
            for p in problems:
                print(f"{rules.id}: FAIL {p}")
        else:
            ref = "" if rules.reference_value is None else f" (reference {rules.reference_value:.7f})"
            print(f"{rules.id}: ok{ref}")
    return 1 if failures else 0


#: the width of the rule set's column of ``tables list``: a longer id goes on a line of its own
LIST_NAME = 20


def run_list(args) -> int:
    from ..core.errors import MissingTableError, TableError
    from ..core.rules import RULE_SETS
    from ..engine.tables import built_rule_sets, load_table, resolve_dir, table_paths

    print(f"tables folder: {resolve_dir(args.tables)}")
    listed = list(dict.fromkeys([*RULE_SETS.values(), *built_rule_sets(args.tables)]))
    lines = []
    for rules in listed:
        npy = table_paths(rules, args.tables)[0]
        try:
            table = load_table(rules, args.tables, check_hash=False, light=True)
        except MissingTableError:
            lines += _list_row(rules.id, "missing")
            continue
        except TableError:
            lines += _list_row(rules.id, f"broken  (yahtzee tables verify --rules {rules.id} says why)")
            continue
        size = npy.stat().st_size / 2**20
        lines += _list_row(rules.id, f"built {size:7.1f} MiB  value {table.empty_card_value:.7f}")
        lines += _list_target(rules, args.tables)
    print(fit_text("\n".join(lines), hang=LIST_NAME + 3))
    return 0


def _list_row(name: str, text: str) -> list[str]:
    """A row of ``tables list`` within 80 columns: the name, then what is there."""
    if len(name) > LIST_NAME:
        return [f"  {name}", f"  {'':<{LIST_NAME}} {text}"]
    return [f"  {name:<{LIST_NAME}} {text}"]


def _list_target(rules, tables_dir) -> list[str]:
    """The row of a rule set's target table, when one is there."""
    from ..core.errors import TableError
    from ..engine.target import load_target, target_paths

    paths = target_paths(rules, tables_dir)
    if not paths[0].exists():
        return []
    name = f"{rules.id} --target"
    try:
        table = load_target(rules, tables_dir, light=True)
    except TableError:
        return _list_row(name, f"broken  (yahtzee tables verify --rules {rules.id} says why)")
    size = sum(p.stat().st_size for p in paths[:2]) / 2**20
    p300 = table.manifest.get("empty_card", {}).get("300")
    extra = f"  P(>=300) {p300:.7f}" if p300 is not None else ""
    return _list_row(name, f"built {size:7.1f} MiB  targets up to {table.t_max}{extra}")
