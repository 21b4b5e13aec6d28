"""The address rules of ``--http``, without a server: DNS-rebinding protection is on for
every address, and a non-loopback one needs an explicit allow-list."""
from __future__ import annotations

import pytest

from skillsite.mcp.transport import AddressError, http_security, parse_address


@pytest.mark.parametrize("text,expected", [
    ("127.0.0.1:8000", ("127.0.0.1", 8000)), ("[::1]:9", ("::1", 9)),
    (":8000", ("127.0.0.1", 8000)), ("8000", ("127.0.0.1", 8000)),
    ("skills.example:443", ("skills.example", 443))])
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", "host", "host:", "host:0", "host:65536", "host:x", "::1"])
def test_bad_addresses(text: str) -> None:
    with pytest.raises(AddressError, match="HOST:PORT"):
        parse_address(text)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_is_protected_even_where_the_sdk_would_not(host: str) -> None:
    settings = http_security(host)
    assert settings.enable_dns_rebinding_protection
    assert "127.0.0.1:*" in settings.allowed_hosts
    assert "http://localhost:*" in settings.allowed_origins


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "skills.example"])
def test_a_public_address_needs_an_allow_list(host: str) -> None:
    with pytest.raises(AddressError, match="allow-list"):
        http_security(host)
    settings = http_security(host, ("skills.example:8000",), ("https://app.example",))
    assert settings.enable_dns_rebinding_protection
    assert settings.allowed_hosts == ["skills.example:8000"]
    assert settings.allowed_origins == ["https://app.example"]
