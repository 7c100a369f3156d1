"""A standard Hugging Face hub cache in a temporary folder, for loading datasets offline.

`hub_repo(home, "ORG/NAME")` makes the cache entry of dataset repository ORG/NAME
(`HF_HOME/hub/datasets--ORG--NAME/snapshots/<rev>/`, `refs/main` naming the revision)
and returns the snapshot folder to write the repository's files into. Run the code
under test with `HF_HOME=home` and `HF_HUB_OFFLINE=1`: huggingface_hub then reads the
files from that cache as it would on a user's machine that downloaded them before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REVISION = "0123456789abcdef0123456789abcdef01234567"


def hub_repo(home: Path, repo_id: str, revision: str = REVISION) -> Path:
    """The snapshot folder of dataset repo `repo_id` in the hub cache under `home`."""
    org, name = repo_id.split("/")
    repo = home / "hub" / f"datasets--{org}--{name}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(revision)
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True, exist_ok=True)
    return snapshot


def lctui_offline(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """`python -m lctui ARGS` in a fresh process (huggingface_hub reads HF_HOME and
    HF_HUB_OFFLINE at import) that reads the hub cache under `home`, offline."""
    env = {**os.environ, "HF_HOME": str(home), "HF_HUB_OFFLINE": "1", "COLUMNS": "250"}
    env.pop("HF_HUB_CACHE", None)
    return subprocess.run(
        [sys.executable, "-m", "lctui", *args], env=env, capture_output=True, text=True, timeout=300
    )
