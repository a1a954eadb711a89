"""Widget panels: controls wired to a plotting function (CONTRIBUTING.md §5).

A lecture draws a figure once with default settings, then hands the very same
function to :func:`panel`, which redraws it whenever a control changes::

    def curves(lam=1e-3, batch_size=1):
        ...fit...
        return plot_convergence(...)      # a matplotlib Figure

    curves()                              # the static figure
    panel(curves, lam=lam_slider(), batch_size=batch_size_slider())

Every control is built with ``continuous_update=False``: a slider fits models, so it
redraws when released, not at every pixel of the drag.
"""
import ipywidgets as widgets
from IPython.display import display

__all__ = ["Panel", "panel", "lam_slider", "batch_size_slider", "width_slider", "choice",
           "sampling_dropdown", "toggle", "int_slider", "float_slider"]

_LAYOUT = dict(style={"description_width": "initial"}, layout=widgets.Layout(width="auto"))


class Panel(widgets.VBox):
    """The controls and the figure they drive (see :func:`panel`).

    Before its cell has run, a notebook shows a widget's text form: make it say what
    to do rather than list the children.
    """

    def __repr__(self):
        return "Interactive panel: run the notebook's cells (Run → Run All Cells) to use it."


def panel(plot, **controls):
    """Controls above, the figure returned by ``plot(**values)`` below.

    Parameters
    ----------
    plot : callable
        Takes the controls' values as keyword arguments and returns a
        :class:`matplotlib.figure.Figure`.
    **controls : ipywidgets.ValueWidget
        One control per keyword of ``plot``.

    Returns
    -------
    Panel
        An ``ipywidgets.VBox``; the last expression of a cell displays it.
    """
    output = widgets.interactive_output(lambda **values: display(plot(**values)), controls)
    rows = list(controls.values())
    controls_box = widgets.GridBox(
        rows, layout=widgets.Layout(grid_template_columns="repeat(3, minmax(180px, 1fr))",
                                    grid_gap="4px 16px"))
    return Panel([controls_box, output])


def lam_slider(value=1e-4, min_exponent=-6, max_exponent=0, description="λ",
               readout_format=".0e"):
    """Regularisation λ on a log scale, 10**min_exponent to 10**max_exponent (any positive
    scale parameter: a box C, a kernel width γ; ``readout_format`` '.2g' reads 0.5 and 2)."""
    return widgets.FloatLogSlider(value=value, base=10, min=min_exponent, max=max_exponent,
                                  step=0.25, description=description,
                                  readout_format=readout_format, continuous_update=False,
                                  **_LAYOUT)


def batch_size_slider(value=1, options=(1, 2, 4, 8, 16, 32, 64, 128, 256), description="k"):
    """Mini-batch size k, over powers of two."""
    return widgets.SelectionSlider(options=list(options), value=value, description=description,
                                   continuous_update=False, **_LAYOUT)


def width_slider(value=256, min_exponent=4, max_exponent=12, description="D (output width)"):
    """An output width D (random features, landmarks) over the powers of two
    2**min_exponent to 2**max_exponent: equal steps on the log scale of the error plots,
    as for k, so that a small drag never jumps from 256 to 2592."""
    options = [2 ** e for e in range(min_exponent, max_exponent + 1)]
    if value not in options:
        raise ValueError(f"value must be a power of two from {options[0]} to {options[-1]}, "
                         f"got value={value!r}.")
    return batch_size_slider(value, options, description)


def choice(options, value=None, description=""):
    """A dropdown over ``options`` (a sampling scheme, a loss, an averaging...)."""
    options = list(options)
    return widgets.Dropdown(options=options, value=options[0] if value is None else value,
                            description=description, **_LAYOUT)


def sampling_dropdown(value="iid"):
    """The sampling scheme: 'iid', 'permutation' or 'reshuffle'."""
    return choice(["iid", "permutation", "reshuffle"], value, "sampling")


def toggle(value=False, description=""):
    """A checkbox (projection on/off, ...)."""
    return widgets.Checkbox(value=value, description=description, indent=False, **_LAYOUT)


def int_slider(value, min, max, step=1, description=""):
    """An integer slider (iterations T, features D, ...)."""
    return widgets.IntSlider(value=value, min=min, max=max, step=step, description=description,
                             continuous_update=False, **_LAYOUT)


def float_slider(value, min, max, step, description="", readout_format=".2f"):
    """A real-valued slider (a point x, a margin, ...)."""
    return widgets.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                               readout_format=readout_format, continuous_update=False, **_LAYOUT)


def __dir__():
    return __all__
