"""Figures of the scaling-out lecture (15): what each draws, and no pyplot."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from lsl_lib.distributed import OutOfCoreReport
from lsl_lib.plotting import plot_averaging, plot_out_of_core, plot_scaling

pytestmark = pytest.mark.usefixtures("no_pyplot_figures")


def _trace(objective, test_error, rounds=None):
    epoch = np.arange(1, len(objective) + 1)
    trace = dict(epoch=epoch, objective=np.asarray(objective), test_error=np.asarray(test_error))
    if rounds is not None:
        trace["round"] = np.asarray(rounds)
    return trace


def test_averaging_one_line_per_run_in_each_panel_same_colours():
    runs = {"one machine": _trace([0.5, 0.4, 0.35], [0.10, 0.08, 0.07]),
            "one-shot, K = 4": _trace([0.6, 0.5, 0.45], [0.12, 0.10, 0.09]),
            "every epoch": _trace([0.55, 0.42, 0.36], [0.11, 0.09, 0.07], rounds=[1, 2, 3])}
    fig = plot_averaging(runs, title="K = 4")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    ax_f, ax_e = fig.axes
    for ax in (ax_f, ax_e):
        assert len(ax.get_lines()) == 3
        assert ax.get_xlabel() == "epochs (passes over the data)"
        assert [line.get_marker() for line in ax.get_lines()] == ["o"] * 3  # a mark per round
    np.testing.assert_allclose(ax_f.get_lines()[1].get_ydata(), [0.6, 0.5, 0.45])
    np.testing.assert_allclose(ax_e.get_lines()[2].get_xdata(), [1, 2, 3])
    assert [a.get_color() for a in ax_f.get_lines()] == [b.get_color() for b in ax_e.get_lines()]
    assert ax_f.get_ylabel() == "primal objective f(w)" and ax_e.get_ylabel() == "test error"
    assert ax_f.get_yscale() == "linear" and ax_e.get_ylim()[0] == 0
    (legend,) = fig.legends  # one legend, under the panels
    assert [t.get_text() for t in legend.get_texts()] == ["one machine", "one-shot, K = 4",
                                                          "every epoch"]
    assert ax_e.get_ylim() == pytest.approx((0, 1.08 * 0.12))  # from 0, the top point inside
    assert fig.get_suptitle() == "K = 4"
    # by communication rounds
    fig = plot_averaging({"every epoch": runs["every epoch"]}, x="round", y="test_error")
    (ax,) = fig.axes
    assert ax.get_xlabel() == "communication rounds"
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [1, 2, 3])


def test_averaging_with_the_optimum_draws_the_suboptimality_on_a_log_scale():
    runs = {"one machine": _trace([0.5, 0.4, 0.3], [0.1, 0.1, 0.1]),
            "one-shot": _trace([0.7, 0.6, 0.3], [0.2, 0.2, 0.2])}
    fig = plot_averaging(runs, reference=0.3)
    ax_f, ax_e = fig.axes
    assert ax_f.get_yscale() == "log" and ax_e.get_yscale() == "linear"
    assert ax_f.get_ylabel() == "primal suboptimality f(w) − f(w*)"
    # f - f* = 0 cannot be drawn on a log axis: left out, not drawn as a fake value
    np.testing.assert_allclose(ax_f.get_lines()[0].get_ydata(), [0.2, 0.1, np.nan])
    np.testing.assert_allclose(ax_f.get_lines()[1].get_ydata(), [0.4, 0.3, np.nan])
    np.testing.assert_allclose(ax_e.get_lines()[1].get_ydata(), [0.2, 0.2, 0.2])
    assert ax_f.yaxis.get_major_formatter()(0.2, 0) == "0.2"


def test_averaging_bad_input():
    with pytest.raises(ValueError, match="at least one trace"):
        plot_averaging({})
    with pytest.raises(ValueError, match="no column 'test_error'"):
        plot_averaging({"a": dict(epoch=[1, 2], objective=[1.0, 0.5])})
    with pytest.raises(ValueError, match="2 values of 'epoch' and 3 of 'objective'"):
        plot_averaging({"a": dict(epoch=[1, 2], objective=[1, 2, 3], test_error=[1, 2])})


def test_scaling_time_on_log_axes_with_the_ideal_speedup_and_the_cores():
    K = [1, 2, 4, 8]
    runs = {"one-shot": dict(seconds=[2.0, 1.1, 1.0, 1.05], test_error=[0.06, 0.06, 0.07, 0.07]),
            "every epoch": dict(seconds=[2.5, 1.6, 1.5, 1.7], test_error=[0.06, 0.06, 0.06, 0.06])}
    fig = plot_scaling(K, runs, cores=2, title="scaling")
    ax_t, ax_e = fig.axes
    assert ax_t.get_yscale() == "log" and ax_e.get_yscale() == "linear"
    assert ax_t.get_xscale() == ax_e.get_xscale() == "log"
    one_shot, periodic, ideal = ax_t.get_lines()
    np.testing.assert_allclose(one_shot.get_xdata(), K)
    np.testing.assert_allclose(periodic.get_ydata(), [2.5, 1.6, 1.5, 1.7])
    np.testing.assert_allclose(ideal.get_ydata(), [2.0, 1.0, 0.5, 0.25])  # T(1) / K
    assert ideal.get_linestyle() == ":"
    labels = ax_t.get_legend_handles_labels()[1]
    assert labels == ["one-shot", "every epoch", "ideal speed-up of one-shot",
                      "K > 2 cores: workers share them"]
    (legend,) = fig.legends  # one legend for the panels, under them, each label once
    assert [t.get_text() for t in legend.get_texts()] == labels
    assert len(ax_e.get_lines()) == 2 and ax_e.get_ylim()[0] == 0
    assert ax_t.get_xlabel() == ax_e.get_xlabel() == "workers K"
    assert ax_t.get_ylabel() == "wall-clock time" and ax_e.get_ylabel() == "test error"
    assert [t.get_text() for t in ax_t.get_xticklabels()] == ["1", "2", "4", "8"]
    assert ax_t.yaxis.get_major_formatter()(0.5, 0) == "500 ms"
    assert fig.get_suptitle() == "scaling"
    # from K0 = 2 on, the ideal is T(K0) K0 / K
    fig = plot_scaling([2, 4], {"a": {"seconds": [1.0, 0.6]}}, y="seconds")
    np.testing.assert_allclose(fig.axes[0].get_lines()[1].get_ydata(), [1.0, 0.5])


def test_scaling_labels_both_ends_of_a_short_time_range():
    """0.18-0.38 s: the 1-2-5 ticks label 200 ms alone; the short range gets 1, 1.5, 2, 3, 4..."""
    runs = {"a": dict(seconds=[0.38, 0.21, 0.18]), "b": dict(seconds=[0.32, 0.39, 0.38])}
    fig = plot_scaling([1, 2, 4], runs, y="seconds", ideal_speedup=False)
    ax = fig.axes[0]
    fig.canvas.draw()
    low, high = ax.get_ylim()
    inside = [t for t in ax.get_yticks() if low <= t <= high]
    assert len(inside) >= 3
    assert min(inside) <= 0.2 and max(inside) >= 0.3
    # a range of decades keeps 1, 2, 5
    fig = plot_scaling([1, 2], {"a": dict(seconds=[0.01, 3.0])}, y="seconds", ideal_speedup=False)
    ticks = fig.axes[0].get_yticks()
    assert 0.3 not in np.round(ticks, 6) and 0.2 in np.round(ticks, 6)


def test_scaling_leaves_out_missing_columns_and_draws_memory_in_bytes():
    runs = {"K models averaged": dict(test_error=[0.1, 0.09], model_bytes=[8192, 16384]),
            "one model of K T steps": dict(test_error=[0.1, 0.08], seconds=[1.0, 3.0])}
    fig = plot_scaling([1, 2], runs, y=("test_error", "seconds", "model_bytes"),
                       ideal_speedup=False)
    ax_e, ax_t, ax_m = fig.axes
    assert len(ax_e.get_lines()) == 2
    (timed,) = ax_t.get_lines()  # one run timed, no ideal line
    assert timed.get_color() == ax_e.get_lines()[1].get_color()
    assert len(ax_m.get_lines()) == 1 and ax_m.get_yscale() == "log"
    assert ax_m.get_ylabel() == "model memory"
    assert ax_m.yaxis.get_major_formatter()(16384, 0) == "16 KiB"
    assert not any(p.get_label().startswith("K >") for p in ax_t.patches)  # no cores given


def test_scaling_bad_input():
    with pytest.raises(ValueError, match="at least one run"):
        plot_scaling([1, 2], {})
    with pytest.raises(ValueError, match="increasing integers"):
        plot_scaling([2, 1], {"a": dict(seconds=[1, 2], test_error=[0, 0])})
    with pytest.raises(ValueError, match="3 values of 'seconds' for 2 values of n_workers"):
        plot_scaling([1, 2], {"a": dict(seconds=[1, 2, 3], test_error=[0, 0])})
    with pytest.raises(ValueError, match="no run has the column 'objective'"):
        plot_scaling([1, 2], {"a": dict(seconds=[1, 2])}, y="objective")


def _report(data, peak, n_chunks=40):
    return OutOfCoreReport(data_bytes=data, chunk_bytes=2**21, n_chunks=n_chunks,
                           peak_bytes=peak, memory_budget=2**24, seconds=1.0)


def test_out_of_core_four_bars_per_run_labelled_with_their_size():
    reports = [_report(80 * 2**20, 5 * 2**20), _report(320 * 2**20, 5 * 2**20, n_chunks=160)]
    fig = plot_out_of_core(reports, title="streamed")
    (ax,) = fig.axes
    heights = [bar.get_height() for bar in ax.patches]
    # bar j of run i: data, budget, peak, chunk, in groups of the same colour
    np.testing.assert_allclose(heights, [80 * 2**20, 320 * 2**20, 2**24, 2**24,
                                         5 * 2**20, 5 * 2**20, 2**21, 2**21])
    assert ax.get_yscale() == "log"
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["80.0 MiB", "320.0 MiB", "16.0 MiB", "16.0 MiB", "5.0 MiB", "5.0 MiB",
                     "2.0 MiB", "2.0 MiB"]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "80.0 MiB streamed\nin 40 chunks", "320.0 MiB streamed\nin 160 chunks"]
    assert ax.get_legend_handles_labels()[1] == [
        "the data (X, y) in memory", "memory budget", "measured peak of the run", "one chunk"]
    assert ax.yaxis.get_major_formatter()(2**22, 0) == "4 MiB"
    assert ax.get_title() == "streamed"
    # one report alone
    assert len(plot_out_of_core(reports[0]).axes[0].patches) == 4


def test_out_of_core_bad_input():
    with pytest.raises(ValueError, match="at least one OutOfCoreReport"):
        plot_out_of_core([])
    with pytest.raises(ValueError, match="must be positive"):
        plot_out_of_core(_report(2**20, 0))
