"""The app's side of DRAG with KNEE: everything the Streamlit pages use, and the only part of the package
that imports Streamlit (``ui``) or plotly (``figures``). Needs the ``app`` extra; the library's core never
imports it.

Modules: ``ui`` (the Streamlit glue: page frame, engine per process, session state), ``figures`` (what is
drawn), ``compare`` (the Compare session: runs remembered, exports), ``uploads`` (uploads in the background),
``evaluation`` (what the Evaluate page asks of ``drag_core.evaluation``), ``jobs`` (its evaluations in a
background process or a thread), ``display`` (words: escaping, clocks,
settings rows), ``sample`` (the bundled sample document), ``environment`` (secrets over the environment).
The pages import from here only.
"""

__all__: list[str] = []  # the modules are imported by name: ``from drag_core.app import ui``
