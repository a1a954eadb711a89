"""Figures of the SARAH lecture (05): what each draws, and no pyplot."""

import numpy as np
import pytest

from lsl_lib.plotting import AXIS_LABELS, plot_convergence_bound, plot_theorems_and_practice
from plotting_support import bands, dashed_lines, legend_labels, renders

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_plot_convergence_bound_draws_bounds_and_clips_growing_ones():
    history = {"effective_passes": [0.0, 3.0, 6.0], "suboptimality": [1.0, 1e-3, 1e-6],
               "grad_norm2": [1.0, 1e-2, 1e-4]}
    bounds = {"σ^s ‖∇f(w̃_0)‖², σ = 0.5": ("grad_norm2", [0.0, 3.0, 6.0], [1.0, 0.5, 0.25]),
              "vacuous, σ = 100": ("grad_norm2", [0.0, 3.0, 6.0], [1.0, 100.0, 1e4])}
    fig = plot_convergence_bound({"SARAH": history}, bounds, title="bound")
    sub, grad = fig.axes
    assert grad.get_yscale() == "log" and sub.get_yscale() == "log"
    assert grad.get_ylabel() == AXIS_LABELS["grad_norm2"]
    assert sub.get_xlabel() == AXIS_LABELS["effective_passes"]
    assert legend_labels(grad) == ["SARAH", *bounds]
    assert grad.get_lines()[1].get_linestyle() == "--"
    np.testing.assert_allclose(grad.get_lines()[2].get_ydata(), [1.0])  # 100 and 1e4 left out
    assert grad.get_ylim()[1] < 100
    assert fig.get_suptitle() == "bound"
    renders(fig)


def test_plot_theorems_and_practice_one_axis_per_theorem():
    passes = [0.0, 21.0, 42.0]
    seeds = [{"effective_passes": passes, "suboptimality": [0.5, 0.05, v]} for v in (1e-3, 3e-3)]
    practice = {"effective_passes": [0.0, 3.0, 6.0], "suboptimality": [0.5, 0.1, 0.0],
                "grad_norm2": [0.07, 0.01, 1e-3]}
    panels = [dict(column="suboptimality", title="SVRG", histories={"theorem": seeds,
                                                                    "practice": practice},
                   bounds={"bound α^s": (passes, [0.5, 0.4, 0.32])}),
              dict(column="grad_norm2", title="SARAH", histories={"practice": practice},
                   bounds={"bound σ^s": (passes, [0.07, 0.04, 0.0])})]
    fig = plot_theorems_and_practice(panels, title="theory and practice")
    left, right = fig.axes
    fig.canvas.draw()
    assert left.get_position().y0 == pytest.approx(right.get_position().y0)  # one row
    assert legend_labels(left) == ["theorem (mean of 2)", "practice", "bound α^s"]
    np.testing.assert_allclose(left.get_lines()[0].get_ydata(), [0.5, 0.05, 2e-3])  # the mean
    assert len(bands(left)) == 1 and len(bands(right)) == 0  # a band for several seeds only
    assert np.isnan(left.get_lines()[1].get_ydata()[-1])  # 0 is not drawn on a log axis
    assert dashed_lines(left)[0].get_color() == "k" and len(dashed_lines(right)) == 1
    assert np.isnan(dashed_lines(right)[0].get_ydata()[-1])
    assert left.get_yscale() == right.get_yscale() == "log"
    assert left.get_ylabel() == AXIS_LABELS["suboptimality"]
    assert right.get_ylabel() == AXIS_LABELS["grad_norm2"]
    assert left.get_xlabel() == AXIS_LABELS["effective_passes"]
    assert (left.get_title(), right.get_title()) == ("SVRG", "SARAH")
    assert fig.get_suptitle() == "theory and practice"
    renders(fig)
