"""Build the course's website: ``python -m book.build`` writes ``book/_build/html/``.

The site shows the committed notebooks with their outputs (nothing is executed): lecture 00 as
the landing page, the lectures 01-15, the homework's student notebooks and README, the lecture
map (generated from README.md's table) and the benchmark and reproduction tables (from
benchmarks/README.md). The steps:

1. ``npm ci --prefix book`` when ``book/node_modules`` is missing or older than
   ``package-lock.json``: MathJax, require.js and the Jupyter widget manager, which the site
   serves itself (no CDN at run time).
2. Stage the sources in ``book/_build/src/``, copies of the committed files that are never
   modified in place: each lecture's widget panel replaced by its static panel (frames rendered
   by ``book/static_panels.py``, cached in ``book/_build/panels-cache/``), a bar of links at the
   top of each notebook (download, Binder, the ``lsl_lib`` source), and links into the
   repository pointed at the site's pages or at the repository on GitHub. A staged file is only
   rewritten when its content changes, so that Sphinx re-reads only what changed.
3. ``sphinx-build`` with ``book/conf.py`` into ``book/_build/html/``.
"""

import argparse
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from book.static_panels import render_panels

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
BUILD = BOOK / "_build"
SRC = BUILD / "src"
HTML = BUILD / "html"

# benchmarks/README.md is split into two pages at this heading
REPRODUCTIONS_HEADING = "## The papers' tables, reproduced"
# where the static panels' frames go, and how a page at notebooks/<stem>.html refers to them
FRAMES_URL = "../_static/panels"
INDEX_FRAMES_URL = "_static/panels"  # lecture 00, staged as index, is one folder up
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# the committed notebooks, offered for download from the site
DOWNLOADS = "_static/downloads"


def repository(pyproject=ROOT / "pyproject.toml"):
    """The repository's ``owner/name`` on GitHub, read from pyproject.toml's Binder URL.

    ``[project.urls]`` ``Binder`` names the repository once; a fork changes it there.

    Parameters
    ----------
    pyproject : pathlib.Path
        The pyproject.toml to read.

    Returns
    -------
    str
        ``owner/name``.
    """
    with open(pyproject, "rb") as file:
        url = tomllib.load(file).get("project", {}).get("urls", {}).get("Binder", "")
    match = re.match(r"https://mybinder\.org/v2/gh/([^/\s]+/[^/\s]+)/", url)
    if match is None:
        raise ValueError(f"pyproject: {pyproject} has no [project.urls] "
                         "Binder = 'https://mybinder.org/v2/gh/<owner>/<name>/...'")
    return match.group(1)


def _section(text, heading):
    """The lines of markdown ``text`` from ``heading`` to the next heading of its level."""
    lines = text.splitlines()
    level = heading.split(" ", 1)[0]
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(level + " ")), len(lines))
    return lines[start:end]


def lecture_modules(readme=ROOT / "README.md"):
    """Each lecture's ``lsl_lib`` modules, from the third column of README's lecture map.

    Parameters
    ----------
    readme : pathlib.Path
        The README whose "## Lecture map" table to read.

    Returns
    -------
    dict of str to list of str
        Notebook stem to module names relative to ``lsl_lib`` (``["losses", "subgradients"]``);
        an empty list where the column holds a dash.
    """
    modules = {}
    for line in _section(readme.read_text(encoding="utf-8"), "## Lecture map"):
        stem = re.match(r"\| `(\d\d_\w+)` \|", line)
        if stem:
            column = line.rstrip(" |").rsplit(" | ", 1)[1]
            modules[stem.group(1)] = [name.removeprefix("lsl_lib.")
                                      for name in re.findall(r"`([\w.]+)`", column)]
    return modules


def module_path(name):
    """The repository path of module ``lsl_lib.<name>``: its file or its package's folder."""
    path = ROOT / "lsl_lib" / name.replace(".", "/")
    if path.with_suffix(".py").is_file():
        return f"lsl_lib/{name.replace('.', '/')}.py"
    if (path / "__init__.py").is_file():
        return f"lsl_lib/{name.replace('.', '/')}"
    raise ValueError(f"name: README's lecture map names lsl_lib.{name}, which does not exist")


def github_url(repo, path):
    """The page of the repository's file or folder ``path`` (POSIX) on GitHub, branch main."""
    kind = "tree" if (ROOT / path).is_dir() else "blob"
    return f"https://github.com/{repo}/{kind}/main/{path}"


def _staged_doc(repo_path):
    """Where the committed file ``repo_path`` (a POSIX path) is staged, or None if it is not."""
    if repo_path == "notebooks/00_start_here.ipynb":
        return "index.ipynb"
    if re.fullmatch(r"notebooks/\d\d_\w+\.ipynb", repo_path) or (
            repo_path.startswith("homework/student/")
            and repo_path.endswith((".ipynb", "README.md"))):
        return repo_path
    return {"README.md#lecture-map": "lecture_map.md",
            "benchmarks/README.md": "benchmarks.md"}.get(repo_path)


def fix_links(text, repo_path, staged_path, repo):
    """Point the relative markdown links of ``text`` at the site's pages or at GitHub.

    Parameters
    ----------
    text : str
        Markdown from the committed file ``repo_path``.
    repo_path : str
        That file's POSIX path in the repository (links are relative to its folder).
    staged_path : str
        The POSIX path of the staged page that shows ``text``.
    repo : str
        ``owner/name`` of the repository on GitHub.

    Returns
    -------
    str
        ``text`` with each link to a staged file made relative to ``staged_path``, and each
        other relative link made a link to the file on GitHub (:func:`github_url`).
    """
    def replace(match):
        target = match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        path = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
        staged = _staged_doc(path) or _staged_doc(f"{path}#{anchor}")
        if staged is None:
            new = github_url(repo, path) + (f"#{anchor}" if anchor else "")
        else:
            new = posixpath.relpath(staged, posixpath.dirname(staged_path) or ".")
            if anchor and not staged.endswith("lecture_map.md"):
                new += f"#{anchor}"
        return f"{match.group(1)}({new})"

    return re.sub(r"(\]\s*)\(([^)\s]+)\)", replace, text)


def offline_images(text):
    """Replace each remote image of markdown ``text`` by its alt text (the site loads nothing
    from elsewhere): ``[![Binder](https://...svg)](link)`` becomes ``[Binder](link)``."""
    return re.sub(r"!\[([^\]]*)\]\(https?://[^)\s]+\)", r"\1", text)


def _write(path, text):
    """Write ``text`` to ``path`` unless it already holds it (Sphinx re-reads changed files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _sync(source, target):
    """Copy file or folder ``source`` to ``target``, skipping files already copied."""
    files = [source] if source.is_file() else [p for p in sorted(source.rglob("*")) if p.is_file()]
    for file in files:
        dest = target if source.is_file() else target / file.relative_to(source)
        stat = file.stat()
        if not dest.is_file() or (dest.stat().st_size, dest.stat().st_mtime) != (
                stat.st_size, stat.st_mtime):
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, dest)


def npm_assets(static):
    """Install the npm packages when needed and copy what the pages load into ``static``.

    Parameters
    ----------
    static : pathlib.Path
        The staged ``_static`` folder.
    """
    modules = BOOK / "node_modules"
    marker = modules / ".package-lock.json"  # npm ci writes it last
    lock = BOOK / "package-lock.json"
    if not marker.is_file() or marker.stat().st_mtime < lock.stat().st_mtime:
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("build.py: npm not found. The site serves MathJax, require.js and the "
                             "widget manager from npm packages: install Node.js and npm "
                             "(Debian: apt-get install npm), then run python -m book.build again.")
        print("npm ci --prefix book (MathJax, require.js, the widget manager)", flush=True)
        subprocess.run([npm, "ci", "--prefix", str(BOOK), "--ignore-scripts", "--no-audit",
                        "--no-fund"], check=True)
    mathjax = modules / "mathjax" / "es5"
    _sync(mathjax / "tex-chtml.js", static / "mathjax" / "tex-chtml.js")
    for folder in ["input", "output", "ui", "a11y", "adaptors", "sre"]:  # what it loads
        _sync(mathjax / folder, static / "mathjax" / folder)
    _sync(modules / "requirejs" / "require.js", static / "require.js")
    dist = modules / "@jupyter-widgets" / "html-manager" / "dist"
    # embed-amd.js is self-contained; its styles load the hashed font files beside it
    for file in dist.iterdir():
        if file.name == "embed-amd.js" or file.suffix in {".woff2", ".woff", ".ttf", ".eot",
                                                            ".svg"}:
            _sync(file, static / "widgets" / file.name)


def _bar(repo_path, staged_path, repo, modules):
    """The markdown cell of links at the top of a staged notebook (raw HTML, one block)."""
    up = posixpath.relpath(".", posixpath.dirname(staged_path) or ".")
    links = [f'<a class="lsl-download" href="{up}/{DOWNLOADS}/{repo_path}" download>'
             f"Download the notebook (.ipynb)</a>",
             f'<a class="lsl-binder" href="https://mybinder.org/v2/gh/{repo}/HEAD?urlpath='
             f'lab/tree/{repo_path}">Run it on Binder</a>']
    if modules:
        sources = ", ".join(
            f'<a href="{github_url(repo, module_path(name))}">'
            f"<code>lsl_lib.{html.escape(name)}</code></a>" for name in modules)
        links.append(f'<span class="lsl-source">The code: {sources}</span>')
    return {"cell_type": "markdown", "id": "lsl-site-bar", "metadata": {},
            "source": '<div class="lsl-ways-out">\n' + "\n".join(links) + "\n</div>"}


def stage_notebook(repo_path, staged_path, repo, modules, panel=None, tail=()):
    """Stage one committed notebook: links fixed, the bar on top, its panel made static.

    Parameters
    ----------
    repo_path, staged_path : str
        The notebook's POSIX path in the repository and in the staged sources.
    repo : str
        ``owner/name`` on GitHub.
    modules : list of str
        Its ``lsl_lib`` modules (the bar links their source).
    panel : tuple of (int, str), optional
        ``render_panels``' value for it: the panel cell's index and the static panel's HTML,
        which replaces the cell's widget output.
    tail : sequence of dict
        Cells to append (the landing page's table of contents).
    """
    nb = json.loads((ROOT / repo_path).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            cell["source"] = offline_images(fix_links(source, repo_path, staged_path, repo))
        for out in cell.get("outputs", []):
            if "text/markdown" in out.get("data", {}):
                out["data"]["text/markdown"] = offline_images("".join(out["data"]["text/markdown"]))
    if panel is not None:
        index, fragment = panel
        outputs = nb["cells"][index]["outputs"]
        if not any(WIDGET_VIEW in out.get("data", {}) for out in outputs):
            raise ValueError(f"{repo_path}: cell {index} has no widget output to replace")
        nb["cells"][index]["outputs"] = [
            {"output_type": "display_data", "metadata": {}, "data": {"text/html": fragment}}
            if WIDGET_VIEW in out.get("data", {}) else out for out in outputs]
    nb["cells"] = [_bar(repo_path, staged_path, repo, modules), *nb["cells"], *tail]
    _write(SRC / staged_path, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    _sync(ROOT / repo_path, SRC / DOWNLOADS / repo_path)


def lecture_map_page(repo):
    """The lecture map page: README's table, its notebooks and modules made links."""
    lines = _section((ROOT / "README.md").read_text(encoding="utf-8"), "## Lecture map")
    out = ["# Lecture map", "",
           "Each lecture, what it covers and the `lsl_lib` module(s) it runs "
           "(the source on GitHub)."]
    for line in lines[1:]:
        row = re.match(r"\| `(\d\d_\w+)` \|(.*)\| (.*) \|$", line)
        if row:
            stem, topic, column = row.groups()
            page = "index.ipynb" if stem == "00_start_here" else f"notebooks/{stem}.ipynb"
            column = re.sub(
                r"`([\w.]+)`",
                lambda m: f"[`{m.group(1)}`]"
                          f"({github_url(repo, module_path(m.group(1).removeprefix('lsl_lib.')))})",
                column)
            line = f"| [`{stem}`]({page}) |{topic}| {column} |"
        else:
            line = line.replace("[homework](#homework)",
                                "[homework](homework/student/README.md)")
        out.append(line)
    return fix_links("\n".join(out).rstrip() + "\n", "README.md", "lecture_map.md", repo)


def benchmark_pages(repo):
    """benchmarks/README.md as two pages: the benchmarks, and the papers' tables reproduced."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    bench, sep, papers = text.partition("\n" + REPRODUCTIONS_HEADING)
    if not sep:
        raise ValueError(f"benchmarks/README.md has no line {REPRODUCTIONS_HEADING!r}")
    # the section becomes a page: its headings one level up
    papers = re.sub(r"^#(#+ )", r"\1", REPRODUCTIONS_HEADING + papers, flags=re.M)
    return {"benchmarks.md": fix_links(bench, "benchmarks/README.md", "benchmarks.md", repo),
            "reproductions.md": fix_links(papers, "benchmarks/README.md", "reproductions.md",
                                          repo)}


def stage(repo, jobs):
    """Stage every source of the site in ``SRC`` (see the module's docstring)."""
    modules = lecture_modules()
    lectures = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    missing = sorted(set(modules) ^ {p.stem for p in lectures})
    if missing:
        raise ValueError(f"README's lecture map and notebooks/ disagree on {missing}")
    student = ROOT / "homework" / "student"
    if not (student / "README.md").is_file():
        raise SystemExit("build.py: homework/student/README.md is missing: "
                         "run python homework/build.py generate first")
    homework = sorted(student.glob("*/*.ipynb"))
    static = SRC / "_static"
    npm_assets(static)
    for file in sorted((BOOK / "_static").iterdir()):
        _sync(file, static / file.name)
    panels = render_panels(lectures, frames_root=static / "panels", frames_url=FRAMES_URL,
                           cache_dir=BUILD / "panels-cache", jobs=jobs)
    toc = ["```{toctree}", ":caption: Lectures", ":hidden:", ""]
    toc += [f"notebooks/{p.stem}" for p in lectures[1:]]
    toc += ["```", "", "```{toctree}", ":caption: Homework", ":hidden:", "",
            "homework/student/README"]
    toc += [p.relative_to(ROOT).with_suffix("").as_posix() for p in homework]
    toc += ["```", "", "```{toctree}", ":caption: Reference", ":hidden:", "",
            "lecture_map", "benchmarks", "reproductions", "```"]
    toc_cell = {"cell_type": "markdown", "id": "lsl-site-toc", "metadata": {},
                "source": "\n".join(toc)}
    for path in lectures:
        repo_path = f"notebooks/{path.name}"
        staged = _staged_doc(repo_path)
        panel = panels.get(path.stem)
        if staged == "index.ipynb":
            if panel is not None:
                panel = (panel[0], panel[1].replace(FRAMES_URL + "/", INDEX_FRAMES_URL + "/"))
            stage_notebook(repo_path, staged, repo, modules[path.stem], panel, [toc_cell])
        else:
            stage_notebook(repo_path, staged, repo, modules[path.stem], panel)
    for path in homework:
        repo_path = path.relative_to(ROOT).as_posix()
        stage_notebook(repo_path, repo_path, repo, [])
    _write(SRC / "homework/student/README.md",
           fix_links((student / "README.md").read_text(encoding="utf-8"),
                     "homework/student/README.md", "homework/student/README.md", repo))
    _write(SRC / "lecture_map.md", lecture_map_page(repo))
    for name, text in benchmark_pages(repo).items():
        _write(SRC / name, text)


def main(argv=None):
    """Build the site; print where it is and how to preview it. Exit non-zero on failure."""
    parser = argparse.ArgumentParser(prog="python -m book.build",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", "-j", type=int, default=2,
                        help="processes for the static panels and for Sphinx (default 2)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    start = time.perf_counter()
    stage(repository(), args.jobs)
    staged = time.perf_counter()
    print(f"staged in {staged - start:.0f} s; sphinx-build", flush=True)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(BOOK), "-j", str(args.jobs),
               "-q", "-W", "--keep-going", str(SRC), str(HTML)]
    if subprocess.run(command).returncode:
        raise SystemExit("build.py: sphinx-build failed (its warnings are above)")
    print(f"built in {time.perf_counter() - start:.0f} s: {HTML / 'index.html'}\n"
          f"preview: python -m http.server -d {os.path.relpath(HTML)} and open "
          f"http://localhost:8000/")


if __name__ == "__main__":
    main()
