"""The floor every other layer stands on: it imports nothing else of memgate.

Events, errors, settings, the embedder, the store-view protocols the stages
read through, and the text helpers (one sentence splitter, one question
detector). ``lint-imports`` (``[tool.importlinter]`` in pyproject.toml)
checks that nothing here imports a stage, a sink, a stream or a face.
"""
