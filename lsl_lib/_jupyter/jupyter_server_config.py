"""JupyterLab started in this repository serves the whole repository.

``python -m pip install -r requirements.txt`` installs this file as
``<environment>/etc/jupyter/jupyter_server_config.py`` (the small distribution of
``pyproject.toml`` beside it), where every Jupyter server of that environment reads it.

``jupyter lab notebooks/00_start_here.ipynb`` would otherwise serve ``notebooks/`` only
(jupyter_server makes the folder of the file it opens the root), and the lectures'
links to the library, ``../lsl_lib/pegasos/_algorithm.py``, would answer 404. Started from the
root of this repository, the server keeps that root, so the start notebook opens and
``lsl_lib/`` opens beside it. Started anywhere else, or with ``--ServerApp.root_dir``
given, nothing changes.
"""
from importlib.util import find_spec
from pathlib import Path

c = get_config()  # noqa: F821 (defined by Jupyter when it loads a config file)

_spec = find_spec("lsl_lib")
if _spec is not None and _spec.origin is not None:
    _repository = Path(_spec.origin).resolve().parent.parent
    if (Path.cwd().resolve() == _repository and (_repository / "notebooks").is_dir()
            and "root_dir" not in c.ServerApp):
        c.ServerApp.root_dir = str(_repository)
