"""Figures of the doubly stochastic gradients lecture (13): what each draws, and no pyplot."""
import numpy as np
import pytest

from lsl_lib.plotting import plot_dsg_convergence, plot_model_memory

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def test_dsg_convergence_leaves_time_zero_off_the_log_axis():
    runs = {"a": dict(examples=[0, 32, 64], seconds=[0.0, 0.01, 0.02], test_error=[0.5, 0.2, 0.1]),
            "b": dict(examples=[32, 64], seconds=[0.005, 0.03], test_error=[0.3, 0.15])}
    fig = plot_dsg_convergence(runs, title="t")
    ax_n, ax_t = fig.axes
    assert len(ax_n.get_lines()[0].get_xdata()) == 3  # examples: the start stays
    first = ax_t.get_lines()[0]
    np.testing.assert_array_equal(first.get_xdata(), [0.01, 0.02])  # time 0 left out
    np.testing.assert_array_equal(first.get_ydata(), [0.2, 0.1])
    assert ax_t.get_xscale() == "log"
    assert "evaluations excluded" in ax_t.get_xlabel()
    assert first.get_color() == ax_n.get_lines()[0].get_color()


def test_model_memory_labels_every_bar():
    fig = plot_model_memory({"DSG": 19_208, "matrix": 76_800_000}, title="m")
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.texts] == ["18.8 KiB", "73.2 MiB"]
