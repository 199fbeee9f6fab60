"""pytest's root configuration: the plugin that checks, in nbval's run of each lesson, that exercise
solutions leave every panel as it was shown (tests/_nbval_panels.py; found through pyproject's
``pythonpath``). Here, not as ``-p`` in addopts: pytest loads ``-p`` plugins before it applies
``pythonpath``, and a conftest deeper than the root may not name plugins."""

pytest_plugins = ["_nbval_panels"]
