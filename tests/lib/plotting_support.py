"""What the plotting tests read off a figure: legend labels, dashed lines, percentile bands, and
whether it renders."""
import io

from matplotlib.collections import PolyCollection


def legend_labels(ax):
    """The labels of an axis' legend entries, in order."""
    return ax.get_legend_handles_labels()[1]


def dashed_lines(ax):
    return [line for line in ax.get_lines() if line.get_linestyle() == "--"]


def bands(ax):
    """The filled areas (``fill_between``) of an axis."""
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def renders(fig):
    """Draw the figure to PNG in memory: raises if anything in it cannot be drawn."""
    fig.savefig(io.BytesIO(), format="png")
