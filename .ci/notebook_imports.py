"""Import every module that a lecture or a student's homework notebook imports.

CI runs it in Binder's environment (``binder/start python .ci/notebook_imports.py``): a module
that binder/requirements.txt does not bring fails here, before a student meets it on Binder.
Shell escapes and magics (lines starting with ``!`` or ``%``) are skipped.
"""
import ast
import importlib
import json
from pathlib import Path

notebooks = [*sorted(Path("notebooks").glob("*.ipynb")),
             *sorted(Path("homework/student").glob("*/*.ipynb"))]
modules = set()
for notebook in notebooks:
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"]).splitlines()
            code = "\n".join(line for line in source if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.Import):
                    modules.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    modules.add(node.module)
for module in sorted(modules):
    importlib.import_module(module)
print(f"binder: the {len(modules)} modules that {len(notebooks)} notebooks import are importable")
