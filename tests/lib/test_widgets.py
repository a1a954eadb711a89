"""Widget panels: the plot function is drawn once at creation and again, with the new
value, whenever a control changes; every control that fits a model updates on release."""
import ipywidgets as widgets
import pytest

from lsl_lib.widgets import (batch_size_slider, choice, float_slider, int_slider, lam_slider,
                             panel, sampling_dropdown, toggle, width_slider)


def test_panel_draws_at_creation_and_redraws_on_change():
    calls = []

    def plot(lam, k, sampling):
        calls.append((lam, k, sampling))
        return f"figure {len(calls)}"

    lam, k, sampling = lam_slider(1e-3), batch_size_slider(4), sampling_dropdown()
    box = panel(plot, lam=lam, k=k, sampling=sampling)
    assert isinstance(box, widgets.VBox)
    assert "run the notebook" in box._repr_mimebundle_()["text/plain"]
    controls, output = box.children
    assert list(controls.children) == [lam, k, sampling]
    assert isinstance(output, widgets.Output)
    assert calls == [(pytest.approx(1e-3), 4, "iid")]
    k.value = 16
    sampling.value = "reshuffle"
    assert calls[-2:] == [(pytest.approx(1e-3), 16, "iid"), (pytest.approx(1e-3), 16, "reshuffle")]


@pytest.mark.parametrize("make", [lambda: lam_slider(), lambda: batch_size_slider(),
                                  lambda: width_slider(),
                                  lambda: int_slider(5, 1, 10),
                                  lambda: float_slider(0.5, 0, 1, 0.1)])
def test_sliders_update_on_release_only(make):
    assert make().continuous_update is False


def test_choices():
    assert sampling_dropdown().options == ("iid", "permutation", "reshuffle")
    assert choice(["a", "b"], "b").value == "b"
    assert choice(["a", "b"]).value == "a"
    assert toggle(True, "projection").value is True
    assert lam_slider(1e-2, -4, 0).max == 0 and lam_slider(1e-2, -4, 0).value == pytest.approx(1e-2)
    assert lam_slider().readout_format == ".0e"
    assert lam_slider(1.0, -1, 1, "γ", readout_format=".2g").readout_format == ".2g"


def test_width_slider_steps_over_powers_of_two():
    slider = width_slider()
    assert isinstance(slider, widgets.SelectionSlider)
    assert list(slider.options) == [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    assert slider.value == 256 and slider.description == "D (output width)"
    slider.index += 1
    assert slider.value == 512  # one step: a factor 2, as on the log axis of the error plot
    assert list(width_slider(8, 3, 5, "m").options) == [8, 16, 32]
    with pytest.raises(ValueError,
                       match="value must be a power of two from 16 to 4096, got value=300"):
        width_slider(300)
