// Loaded between require.js and the widget manager (book/conf.py, nb_ipywidgets_js). Each widget
// module finds its fonts beside the URL require.js gives the module. The widget manager
// (@jupyter-widgets/html-manager/dist) and the widget modules it holds (@jupyter-widgets/controls,
// /base, /output) must all resolve into the site's copy in _static/widgets/, from any page
// (content_root is the way up to the site's root): unmapped, a module's URL is the page's folder
// + "@jupyter-widgets/...", where nothing is, and its fonts fail to load when first used.
require.config({
  paths: {
    "@jupyter-widgets/html-manager/dist":
      document.documentElement.dataset.content_root + "_static/widgets",
    "@jupyter-widgets": document.documentElement.dataset.content_root + "_static/widgets",
  },
});
