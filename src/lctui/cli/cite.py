"""`lctui cite-score`: citation recall and precision (ALCE) of stored generations."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, data
from lctui.core.errors import UserInputError


def add_parsers(sub: Any) -> None:
    from lctui.backends.nli import DEFAULT_NLI_MODEL

    cite = sub.add_parser(
        "cite-score",
        help="score citation recall and precision of stored ALCE generations",
        description="Score the citations of the latest stored generations of the citation "
        "tasks (alce_asqa, alce_qampari) as ALCE does: per sentence, whether the cited "
        "documents entail it (recall) and whether each citation is needed (precision). "
        "Entailment is decided by an NLI model through transformers (--nli, default "
        f"{DEFAULT_NLI_MODEL}) or by an LLM judge (--judge). Scores are stored as scorer "
        "alce_citations (value: recall; precision in its extras; a rubric point per sentence).",
    )
    deciders = cite.add_mutually_exclusive_group()
    deciders.add_argument(
        "--nli",
        metavar="MODEL",
        nargs="?",
        const=DEFAULT_NLI_MODEL,
        help=f"a seq2seq NLI checkpoint (folder or hub id; default {DEFAULT_NLI_MODEL})",
    )
    deciders.add_argument(
        "--judge", metavar="M", help="a model (name from lctui.toml or built-in) to ask instead"
    )
    cite.add_argument("--device", default="auto", help="where the NLI model runs (auto, cpu, cuda)")
    cite.add_argument("--run", metavar="RUN_ID", help="only the generations of this run")
    common_options(cite)
    cite.set_defaults(handler=cmd_cite)


async def _with_judge(store: Any, spec: Any, run: str | None) -> tuple[int, Any, str]:
    from lctui.backends import load_backend
    from lctui.engine.citing import JudgeEntailment, cite_stored

    backend = await asyncio.to_thread(load_backend, spec, None)
    try:
        store.add_model(spec, backend.fingerprint, backend.tokenizer.name, backend.max_context)
        entails = JudgeEntailment(backend, asyncio.get_running_loop(), store)
        found, summary = await cite_stored(store, entails, f"judge {spec.name}", run)
        note = f" Judge: {entails.calls} call(s), {entails.cached} from the cache."
        return found, summary, note
    finally:
        await backend.close()


def cmd_cite(args: argparse.Namespace) -> int:
    from lctui.backends import resolve_model
    from lctui.backends.nli import DEFAULT_NLI_MODEL, load_nli
    from lctui.engine.citing import cite_stored
    from lctui.store import open_store

    resolved = resolve_db(args)
    console = SafeConsole()
    with open_store(resolved.path, shared=True) as store:
        if args.judge:
            spec = resolve_model(args.judge, resolved.config.models)
            found, summary, note = asyncio.run(_with_judge(store, spec, args.run))
        else:
            note = ""
            nli = load_nli(args.nli or DEFAULT_NLI_MODEL, device=args.device)
            try:
                found, summary = asyncio.run(
                    cite_stored(store, nli.entails, f"NLI {nli.name}", args.run)
                )
            finally:
                nli.close()
    if not found:
        where = f"run {args.run}" if args.run else resolved.path
        raise UserInputError(
            f"{where} holds no successful generation of a citation task (alce_asqa, "
            "alce_qampari); nothing was scored"
        )
    console.print(
        f"Citations: {summary.scored} output(s) scored ({summary.unparsed} without a sentence "
        f"to check), {summary.errors} error(s); {summary.checks} entailment check(s)." + note
    )
    for message in summary.messages[:3]:
        console.print(f"[red]citation error:[/] {data(message)}")
    return 1 if summary.errors else 0
