// Loaded between require.js and the widget manager (book/conf.py, nb_ipywidgets_js). The widget
// manager finds its fonts beside the URL require.js gives its module: make that URL the site's
// copy in _static/widgets/, from any page (content_root is the way up to the site's root).
require.config({
  paths: {
    "@jupyter-widgets/html-manager/dist":
      document.documentElement.dataset.content_root + "_static/widgets",
  },
});
