"""What a panel's figure shows outside its canvas (shared by tests/ui/test_panel.py and
tests/ui/test_panel_live.py)."""

from __future__ import annotations


def labels_outside(panel) -> list[str]:
    """Axis labels, titles and tick labels of ``panel.fig`` that stick out of the figure's canvas."""
    fig = panel.fig
    renderer = fig.canvas.get_renderer()
    W, H = fig.canvas.get_width_height()
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts = [ax.xaxis.label, ax.yaxis.label, ax.title, ax._left_title, ax._right_title]
        for axis in (ax.xaxis, ax.yaxis):  # the ticks drawn (within the view), not every located one
            texts += [lab for tick in axis._update_ticks() for lab in (tick.label1, tick.label2)]
        for t in texts:
            if not t.get_visible() or not t.get_text():
                continue
            bb = t.get_window_extent(renderer)
            if bb.x0 < -1 or bb.y0 < -1 or bb.x1 > W + 1 or bb.y1 > H + 1:
                out.append(f"{t.get_text()!r} at {tuple(round(x) for x in bb.extents)} in {W}x{H}")
    return out
