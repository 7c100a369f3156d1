"""Opening speed of the TUI: a 128K-token prompt in the inspector (target 300 ms) and the
results heatmap over 100K stored generations (target 500 ms). Runs the two benches.

    python bench/tui_open.py
"""

from __future__ import annotations

import runpy
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for script in ("tui_inspector_open.py", "tui_heatmap.py"):
        print(f"== {script}")
        runpy.run_path(str(HERE / script), run_name="__main__")
