"""MkDocs hook (mkdocs.yml ``hooks:``): the docstrings' Sphinx roles shown as plain code.

The docstrings cross-reference with Sphinx roles (``:class:`Advice```, ``:func:`~solver.x```);
mkdocstrings renders the name as code and leaves the role's text before it. This drops the
role and a leading ``~`` (Sphinx's "show the last part only": the last part is kept).
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const|ref):(?=<code>)")
TILDE = re.compile(r"<code>~((?:\w+\.\s*)*)(\w+)</code>")


def on_page_content(html: str, **kwargs) -> str:
    """Drop ``:role:`` before a code span, and ``~a.b.`` inside one (keeping ``c``)."""
    return TILDE.sub(r"<code>\2</code>", ROLE.sub("", html))
