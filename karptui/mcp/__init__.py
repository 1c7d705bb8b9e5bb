"""``karptui mcp``: karptui's answers as Model Context Protocol tools (docs/mcp.md).

:mod:`.answers` says what each tool answers, with the command line's own functions and no MCP
import; :mod:`.cap` bounds an answer's size; :mod:`.wire` bounds a request line and answers one
the SDK would drop; :mod:`.server` is the only module that imports the optional ``mcp`` SDK
(``pip install 'karptui[mcp]'``).
"""
