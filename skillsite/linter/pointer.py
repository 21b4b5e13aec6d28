"""JSON pointers (RFC 6901): how every location inside a document is named."""
from __future__ import annotations


def escape(token: str) -> str:
    """One pointer token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def child(pointer: str, token: object) -> str:
    return f"{pointer}/{escape(str(token))}"


def resolve(data: object, pointer: str) -> object:
    """The value at ``pointer`` inside ``data``, or None where nothing is."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(data, dict):
            data = data.get(token)
        elif isinstance(data, list) and token.isdigit() and int(token) < len(data):
            data = data[int(token)]
        else:
            return None
    return data
