"""The Streamlit side of the app: what the pages share (the page frame and navigation, one engine per process,
per-user state, knobs that keep their values, document text drawn as text). The only part of ``drag_core``
that imports Streamlit; the pages use it as ``from drag_core.app import ui``."""

from drag_core.app.ui import evidence, frame, session
from drag_core.app.ui.evidence import *  # noqa: F403
from drag_core.app.ui.frame import *  # noqa: F403
from drag_core.app.ui.session import *  # noqa: F403

__all__ = [*evidence.__all__, *frame.__all__, *session.__all__]
