"""The Evaluate page's jobs: ``process`` runs an evaluation that must build its index in a background process
at a lower CPU priority (``python -m drag_core.app.jobs.process``); ``thread`` asks the user's labelled
questions on the app's own open index in a thread. Both answer alike (``status``, ``cancel``, ``result``). No
Streamlit here."""

__all__: list[str] = []
