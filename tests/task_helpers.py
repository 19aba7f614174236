"""Helpers shared by the task-model tests."""


def doc_paths(doc, prefix=()):
    """Every key path in a parsed YAML document: mapping keys and list indices, parents first."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield prefix + (k,)
            yield from doc_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield prefix + (i,)
            yield from doc_paths(v, prefix + (i,))
