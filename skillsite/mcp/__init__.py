"""The MCP server (issue 9): a thin face over the reader.

``create_server(library)`` returns an SDK ``MCPServer`` whose tools, resources and SEP-2640
skills methods only translate between MCP and :class:`skillsite.reader.Library`; every
decision (ranking, refs, budgets, safe mode) stays in the reader. ``serve_stdio`` and
``serve_http`` run it. Importing this package imports the ``mcp`` SDK (about 1 s), so only
``skillsite mcp`` does.
"""
from __future__ import annotations

from skillsite.mcp.server import create_server, warm_up
from skillsite.mcp.transport import serve_http, serve_stdio

__all__ = ["create_server", "serve_http", "serve_stdio", "warm_up"]
