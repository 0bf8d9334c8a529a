"""What the app draws: plotly figures and HTML/SVG blocks built from trees, search results, comparisons and
evaluation reports. Pure functions, no Streamlit; every text from a document is escaped before it is drawn."""

from drag_core.app.figures.cards import cards_html
from drag_core.app.figures.evaluation import per_query_figure, recall_vs_pages, sweep_figure
from drag_core.app.figures.overlap import overlap_figure
from drag_core.app.figures.sensitivity import sensitivity_html
from drag_core.app.figures.step_table import step_table_html
from drag_core.app.figures.steps import steps_figure
from drag_core.app.figures.style import node_label, titled_label
from drag_core.app.figures.tree import node_marks, selected_node_id, tree_figure
from drag_core.knee import DEFAULT_SENSITIVITIES, SENSITIVITIES
from drag_core.search.explain import step_rows

__all__ = [
    "DEFAULT_SENSITIVITIES",
    "SENSITIVITIES",
    "cards_html",
    "node_label",
    "node_marks",
    "overlap_figure",
    "per_query_figure",
    "recall_vs_pages",
    "selected_node_id",
    "sensitivity_html",
    "step_rows",
    "step_table_html",
    "steps_figure",
    "sweep_figure",
    "titled_label",
    "tree_figure",
]
