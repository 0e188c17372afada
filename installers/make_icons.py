"""Draw the app icon (a bell curve over a shield-like square) and write PNG, ICO and ICNS.

Run: python installers/make_icons.py   (writes resources/icons/; the files are committed)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

OUT = Path(__file__).resolve().parents[1] / "resources" / "icons"


def draw(size: int) -> Path:
    fig = Figure(figsize=(1, 1), dpi=size)
    FigureCanvasAgg(fig)
    fig.patch.set_alpha(0)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.add_patch(FancyBboxPatch((0.06, 0.06), 0.88, 0.88, boxstyle="round,pad=0,rounding_size=0.18",
                                facecolor="#1f4e79", edgecolor="none"))
    x = np.linspace(0.14, 0.86, 200)
    y = 0.22 + 0.55 * np.exp(-((x - 0.5) ** 2) / (2 * 0.11**2))
    ax.fill_between(x, 0.22, y, color="#f5b041", alpha=0.95, linewidth=0)
    ax.plot(x, y, color="white", linewidth=max(1.0, size / 64))
    ax.plot([0.14, 0.86], [0.22, 0.22], color="white", linewidth=max(1.0, size / 96))
    path = OUT / f"planner-app-{size}.png"
    fig.savefig(path, dpi=size, transparent=True)
    return path


def main() -> None:
    from PIL import Image

    OUT.mkdir(parents=True, exist_ok=True)
    pngs = {size: draw(size) for size in (16, 32, 48, 64, 128, 256, 512, 1024)}
    big = Image.open(pngs[1024]).convert("RGBA")
    big.save(OUT / "planner-app.ico", sizes=[(s, s) for s in (16, 32, 48, 64, 128, 256)])
    big.save(OUT / "planner-app.icns")
    (OUT / "planner-app.png").write_bytes(pngs[256].read_bytes())
    for size, path in pngs.items():
        if size not in (32, 256, 512):
            path.unlink()
    print("icons written to", OUT)


if __name__ == "__main__":
    main()
