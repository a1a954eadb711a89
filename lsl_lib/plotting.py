"""Figures of the lectures: results in, :class:`matplotlib.figure.Figure` out.

Pure functions: they never fit a model (CONTRIBUTING.md §1). They build figures with
``matplotlib.figure.Figure`` rather than ``pyplot``, so no global state piles up
when a widget redraws a figure a hundred times; a notebook cell that ends with a
figure displays it once.

The figures live in one module per lecture (``lsl_lib._plotting.pegasos`` holds those of
``notebooks/02_pegasos.ipynb``, and so on) on the common ground of
:mod:`lsl_lib._plotting._base`; every figure is importable from here.
"""
from lsl_lib._plotting._base import AXIS_LABELS, new_figure, plot_convergence
from lsl_lib._plotting.budgeted import (
                                            plot_budgeted_model,
                                            plot_complexity,
                                            plot_degradation,
                                            plot_hyperplanes,
                                            plot_support_growth,
)
from lsl_lib._plotting.coordinate_descent import (
                                            plot_duality_gap,
                                            plot_lasso_path,
                                            plot_residuals,
                                            plot_suboptimality_and_gap,
)
from lsl_lib._plotting.distributed import plot_averaging, plot_out_of_core, plot_scaling
from lsl_lib._plotting.doubly_stochastic import plot_dsg_convergence, plot_model_memory
from lsl_lib._plotting.elm import (
                                            plot_accuracy_against_width,
                                            plot_activations,
                                            plot_break_points,
                                            plot_elm_fit,
                                            plot_solver_times,
)
from lsl_lib._plotting.kernel_approximation import (
                                            plot_error_curves,
                                            plot_matrices,
                                            plot_spectrum,
                                            plot_variance,
)
from lsl_lib._plotting.kernel_pegasos import (
                                            plot_cache_effect,
                                            plot_feature_count,
                                            plot_kernel_pegasos,
                                            plot_kernels,
                                            plot_suboptimality,
                                            plot_violation_counts,
)
from lsl_lib._plotting.kitchen_sinks import (
                                            plot_box_effect,
                                            plot_kitchen_sinks_fit,
                                            plot_oracle_inequality,
                                            plot_sink_families,
)
from lsl_lib._plotting.nystroem import plot_accuracy_and_time, plot_landmarks, plot_nystroem
from lsl_lib._plotting.online_kernel import (
                                            plot_coefficients,
                                            plot_margin_losses,
                                            plot_online_convergence,
                                            plot_online_kernel,
                                            plot_support,
)
from lsl_lib._plotting.pegasos import (
                                            plot_decision_boundary,
                                            plot_minibatch,
                                            plot_training_set_size,
                                            plot_weight_images,
)
from lsl_lib._plotting.random_binning import plot_binning_against_fourier, plot_binning_kernel
from lsl_lib._plotting.random_features import plot_estimate_distribution, plot_kernel_approximation
from lsl_lib._plotting.stochastic_gradient import plot_convergence_bound, plot_theorems_and_practice
from lsl_lib._plotting.subgradients import (
                                            plot_losses,
                                            plot_step_sizes,
                                            plot_subdifferentials,
                                            plot_subgradient,
                                            plot_subgradient_descent,
)

__all__ = [
    "AXIS_LABELS", "new_figure", "plot_convergence",
    "plot_losses", "plot_step_sizes", "plot_subdifferentials", "plot_subgradient",
    "plot_subgradient_descent",
    "plot_decision_boundary", "plot_minibatch", "plot_training_set_size", "plot_weight_images",
    "plot_cache_effect", "plot_feature_count", "plot_kernel_pegasos", "plot_kernels",
    "plot_suboptimality", "plot_violation_counts",
    "plot_coefficients", "plot_margin_losses", "plot_online_convergence", "plot_online_kernel",
    "plot_support",
    "plot_convergence_bound", "plot_theorems_and_practice",
    "plot_duality_gap", "plot_lasso_path", "plot_residuals", "plot_suboptimality_and_gap",
    "plot_error_curves", "plot_matrices", "plot_spectrum", "plot_variance",
    "plot_estimate_distribution", "plot_kernel_approximation",
    "plot_accuracy_and_time", "plot_landmarks", "plot_nystroem",
    "plot_accuracy_against_width", "plot_activations", "plot_break_points", "plot_elm_fit",
    "plot_solver_times",
    "plot_binning_against_fourier", "plot_binning_kernel",
    "plot_box_effect", "plot_kitchen_sinks_fit", "plot_oracle_inequality", "plot_sink_families",
    "plot_dsg_convergence", "plot_model_memory",
    "plot_budgeted_model", "plot_complexity", "plot_degradation", "plot_hyperplanes",
    "plot_support_growth",
    "plot_averaging", "plot_out_of_core", "plot_scaling",
]


def __dir__():
    return __all__
