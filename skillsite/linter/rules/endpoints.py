"""Rules for the endpoints an oxo-flow tool skill declares in ``requires``."""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document

ALLOWED_SCHEMES = ("mcp", "http", "https")
_INTERNAL_NETWORKS = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4",
    "240.0.0.0/4", "::/128", "::1/128", "fc00::/7", "fe80::/10", "64:ff9b::/96",
    "64:ff9b:1::/48", "2002::/16", "ff00::/8",
)]
_INTERNAL_NAMES = ("localhost", "metadata", "instance-data")
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")


def _endpoints(doc: Document) -> Iterator[tuple[int, str]]:
    requires = (doc.data or {}).get("requires")
    if isinstance(requires, list):
        for index, item in enumerate(requires):
            if isinstance(item, str) and "://" in item:
                yield index, item


@rule("tool-endpoint-missing", "error", formats=("skill-toml",), family="manifest")
def tool_endpoint_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A ``skill_type = "tool"`` skill needs at least one ``requires`` entry that is an
    ``mcp://host:port[/path]`` endpoint (``http(s)://`` URLs are accepted too); without one
    oxo-flow has nothing to call.

    Passing example::

        skill_type = "tool"
        requires = ["mcp://tools.example.com:8443/annotate"]
    """
    if (doc.data or {}).get("skill_type") != "tool":
        return
    schemes = {_scheme(url) for _, url in _endpoints(doc)}
    if not schemes & set(ALLOWED_SCHEMES):
        where = "/requires" if "requires" in (doc.data or {}) else "/skill_type"
        yield where, ("a tool skill needs an endpoint in requires, such as "
                      "\"mcp://tools.example.com:8443/path\"")


@rule("endpoint-scheme", "error", formats=("skill-toml",), family="manifest")
def endpoint_scheme(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    An endpoint in ``requires`` uses a scheme other than ``mcp://``, ``http://`` or
    ``https://``, which oxo-flow treats as invalid (``file://``, ``ftp://``, ``ws://``...).
    """
    for index, url in _endpoints(doc):
        scheme = _scheme(url)
        if scheme not in ALLOWED_SCHEMES:
            yield f"/requires/{index}", (f"endpoint scheme {scheme + '://'!r} is not allowed; "
                                         "use mcp://, http:// or https://")


@rule("endpoint-internal", "error", formats=("skill-toml",), family="security")
def endpoint_internal(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    An endpoint points into internal address space, which oxo-flow refuses unless it is
    explicitly exempted: loopback, private (RFC 1918) and unique-local IPv6, link-local and
    cloud metadata (169.254.169.254), CGNAT 100.64/10, benchmarking 198.18/15, NAT64 and
    6to4 ranges, and the names ``localhost``, ``*.local`` and ``*.internal``. Numeric
    tricks such as ``http://2130706433/`` and ``http://0x7f.1/`` are decoded first.

    Exempt a host with ``allow-internal-endpoints = ["mcp.corp.internal"]``.
    """
    for index, url in _endpoints(doc):
        try:
            host = (urlsplit(url).hostname or "").rstrip(".").lower()
        except ValueError:  # fail closed: a host that cannot be read cannot be cleared
            yield f"/requires/{index}", (f"endpoint {url!r} is not a valid URL, so its host "
                                         "cannot be checked; fix the URL")
            continue
        if host and host not in ctx.config.allow_internal_endpoints and _is_internal(host):
            yield f"/requires/{index}", (f"endpoint host {host!r} is in internal address "
                                         "space; use a public host or exempt it with "
                                         "allow-internal-endpoints")


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:  # a malformed host such as "[::1" still has a readable scheme
        return url.partition("://")[0].strip().lower()


def _is_internal(host: str) -> bool:
    if host in _INTERNAL_NAMES or host.endswith(_INTERNAL_SUFFIXES):
        return True
    address = _as_address(host)
    if address is None:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return (address.is_private or address.is_loopback or address.is_link_local
            or address.is_reserved or address.is_unspecified or address.is_multicast
            or any(address in network for network in _INTERNAL_NETWORKS
                   if network.version == address.version))


def _as_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    try:  # legacy forms: 2130706433, 0x7f.1, 127.1 (pure parsing, no DNS lookup)
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None
