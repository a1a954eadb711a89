"""Sphinx configuration of the course's site.

Run through ``python -m book.build``, which stages the sources in ``book/_build/src/`` (copies of
the committed notebooks and pages, and the npm packages' scripts under ``_static/``) and calls
``sphinx-build`` with this folder as the configuration directory. Every script, style and font
is served by the site itself: nothing here names a CDN.
"""

import sys
from pathlib import Path

# the repository's root, where the package ``book`` is (Sphinx imports this file by path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from book.build import SRC, repository  # noqa: E402  (the staged sources; owner/name on GitHub)

project = "lsl — large-scale learning"
author = "the lsl authors"
copyright = "the lsl authors"

extensions = ["myst_nb"]

# The landing page is lecture 00, staged as ``index.ipynb`` (build.py).
root_doc = "index"
# _static holds the committed notebooks offered for download: files, not pages
exclude_patterns = ["_static"]

# The committed outputs are shown as they are: nothing is executed.
nb_execution_mode = "off"
# Markdown outputs (the lectures' tables of losses) hold $...$ math, as JupyterLab renders it.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
# Some display equations share a line with text, which JupyterLab accepts.
myst_dmath_double_inline = True
# The lectures' headings are numbered by hand ("Lecture 2 — ..."); MyST's slugs give anchors.
myst_heading_anchors = 3
# The pages render whatever the heading levels; a skipped level (homework 3 goes from # to ###)
# is left to the notebook's authors rather than failing the build (build.py runs with -W).
suppress_warnings = ["myst.header"]

# MathJax 3 (tex-chtml and the components it loads) and the widget manager, from npm, copied
# to _static by build.py. The widget manager renders the saved state of the progress bars, which
# use only its built-in widgets: a module it does not hold is looked for on the site ("./"),
# never on a CDN.
mathjax_path = "mathjax/tex-chtml.js"
nb_ipywidgets_js = {
    "require.js": {},
    "lsl_widgets.js": {},
    "widgets/embed-amd.js": {"data-jupyter-widgets-cdn": "./"},
}

html_theme = "sphinx_book_theme"
html_title = "lsl — large-scale learning"
# the staged _static: book/_static, the npm packages' scripts and the panels' frames
html_static_path = [str(SRC / "_static")]
# pydata-sphinx-theme logs an error on a page without a mode; figures are drawn on white
html_context = {"default_mode": "light"}
html_css_files = ["static_panel.css", "lsl_site.css"]
html_js_files = ["static_panel.js"]
# The pages' sources are the staged copies (panels replaced, a bar of links added): the bar at
# the top of each lecture links the committed notebook instead.
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {
    "repository_url": f"https://github.com/{repository()}",
    "use_repository_button": True,
    "use_download_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
}
