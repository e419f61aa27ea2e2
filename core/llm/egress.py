"""Where provider calls may go: only where the operator says (issue 36).

An endpoint with a key sends it only to the hosts the operator bound that key to, in the
environment variable named like the key's with ``_HOSTS`` appended
(``TEAMLLM_LLM_KEY_OPENAI_HOSTS=api.openai.com``); a key with no binding is sent nowhere. An
endpoint without a key calls only the hosts of ``settings.LLM_KEYLESS_HOSTS``.

An entry of either list is a host name (``api.openai.com``), a name's subdomains
(``*.openai.azure.com``) or an IP address (``127.0.0.1``, ``[::1]``), each with an optional
port (``127.0.0.1:8765``: that port only); a key's entry without a port or scheme allows
https on port 443 only (:func:`host_rule`). A name is allowed only while it resolves to public
addresses or to addresses inside ``settings.LLM_PRIVATE_NETWORKS``: loopback and private
addresses are reached only where the operator wrote them.

Checked when an endpoint is saved (``generation.services.endpoints``), before every call, and
on every request the HTTP client makes (``core.llm.transport``, the last step before a request
leaves): there a name is looked up once, its addresses checked, and the connection made to the
address checked, so a name that answers differently the second time (DNS rebinding) cannot
turn an allowed host into a private one. The environment is read at each check, as the key is.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from core.llm.keys import BINDING_SUFFIX, api_key_env_allowed

KEYLESS_SETTING = "LLM_KEYLESS_HOSTS"
PRIVATE_SETTING = "LLM_PRIVATE_NETWORKS"
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class EgressRefused(Exception):
    """A call the operator's settings do not allow; the message names the setting to change."""


@dataclass(frozen=True)
class HostRule:
    """One entry of a host list: a lower-case name (``*.`` for its subdomains) or an address,
    and the one port it allows (None: any)."""

    name: str
    address: Address | None
    port: int | None
    scheme: str = ""  # "https": that scheme only; "": any

    def allows(self, *, name: str, address: Address | None, port: int, scheme: str = "") -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.scheme and self.scheme != scheme:
            return False
        if self.address is not None or address is not None:
            return self.address == address
        if self.name.startswith("*."):
            return name.endswith(self.name[1:])
        return name == self.name


def key_hosts_variable(api_key_env: str) -> str:
    """The environment variable that binds the key of ``api_key_env`` to its hosts."""
    return f"{api_key_env}{BINDING_SUFFIX}"


def host_address(host: str) -> Address | None:
    """The address ``host`` is written as (an IPv4-mapped one as IPv4); None for a name."""
    try:
        address = ipaddress.ip_address(host.strip().strip("[]").split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _name(host: str) -> str:
    host = host.strip().rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def host_rule(entry: str, *, keyed: bool = False) -> HostRule:
    """``api.openai.com``, ``*.example.org``, ``127.0.0.1:8765``, ``[::1]:8765`` or a URL's
    ``scheme://host:port``; ValueError when the entry names no host. ``keyed``: an entry of a
    key's binding; one that names no port or scheme allows https on port 443 only, so that the
    key never travels in clear or to another port of the host (``http://host`` or ``host:port``
    say otherwise, in words the operator wrote)."""
    text = entry.strip()
    scheme = ""
    if "://" in text:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise ValueError(entry)
        text = parts.netloc.rpartition("@")[2]
    port_text = ""
    if text.startswith("["):
        host, _bracket, rest = text[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise ValueError(entry)
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, _colon, port_text = text.partition(":")
    else:
        host = text
    port = int(port_text) if port_text else None
    if port is not None and not 0 < port < 65536:
        raise ValueError(entry)
    if keyed and port is None:
        scheme = scheme or "https"
        port = 443 if scheme == "https" else 80
    address = host_address(host)
    if address is not None:
        return HostRule(name="", address=address, port=port, scheme=scheme)
    name = _name(host)
    if not _NAME.fullmatch(name.removeprefix("*.")):
        raise ValueError(entry)
    return HostRule(name=name, address=None, port=port, scheme=scheme)


def egress_allowed_hosts(api_key_env: str) -> tuple[str, list[str]]:
    """The setting that decides where an endpoint may call (its key's binding, or
    ``LLM_KEYLESS_HOSTS`` without a key) and that setting's entries."""
    if api_key_env:
        variable = key_hosts_variable(api_key_env)
        entries: Iterable[str] = os.environ.get(variable, "").split(",")
    else:
        variable, entries = KEYLESS_SETTING, settings.LLM_KEYLESS_HOSTS
    return variable, [entry.strip() for entry in entries if entry.strip()]


def _parsed(setting: str, entries: Iterable[str], parse: Callable[[str], Any], refusal: str) -> list[Any]:
    """Each entry of ``setting`` parsed; the first that cannot be refuses the call with ``refusal``."""
    parsed = []
    for entry in entries:
        if not entry.strip():
            continue
        try:
            parsed.append(parse(entry.strip()))
        except ValueError:
            raise EgressRefused(refusal % {"setting": setting, "entry": entry}) from None
    return parsed


def _rules(setting: str, entries: list[str], *, keyed: bool) -> list[HostRule]:
    return _parsed(
        setting,
        entries,
        lambda entry: host_rule(entry, keyed=keyed),
        _("%(setting)s has an entry that is not a host: %(entry)s."),
    )


def _private_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return _parsed(
        PRIVATE_SETTING,
        settings.LLM_PRIVATE_NETWORKS,
        lambda entry: ipaddress.ip_network(entry, strict=False),
        _("%(setting)s has an entry that is not a network: %(entry)s."),
    )


def egress_check(url: str, *, api_key_env: str, resolve: bool = True) -> None:
    """Raise :class:`EgressRefused` unless a call to ``url`` with the key of ``api_key_env``
    (empty: no key) is allowed (:func:`egress_check_place`)."""
    parts = urlsplit(url)
    try:
        port, host = parts.port, parts.hostname or ""
    except ValueError:
        port, host = None, ""
    egress_check_place(
        scheme=parts.scheme, host=host, port=port, api_key_env=api_key_env, resolve=resolve, shown=url
    )


def egress_check_place(
    *, scheme: str, host: str, port: int | None, api_key_env: str, resolve: bool = True, shown: str = ""
) -> None:
    """Raise :class:`EgressRefused` unless a call to ``host`` (``port``: None for the scheme's)
    with the key of ``api_key_env`` (empty: no key) is allowed; with ``resolve``, a name's
    addresses are looked up and must be public or inside ``LLM_PRIVATE_NETWORKS`` (a name that
    does not resolve here passes: its connection fails on its own). ``shown``: the URL, for
    the message."""
    if api_key_env and not api_key_env_allowed(api_key_env):
        raise EgressRefused(_("The key variable %(variable)s is not allowed.") % {"variable": api_key_env})
    setting, entries = egress_allowed_hosts(api_key_env)
    rules = _rules(setting, entries, keyed=bool(api_key_env))
    scheme, host = scheme.lower(), host.strip("[]")
    if scheme not in ("http", "https") or not host:
        raise EgressRefused(
            _("Only http:// and https:// URLs with a host are called, not %(url)s.")
            % {"url": shown or f"{scheme}://{host}"}
        )
    port = port or (443 if scheme == "https" else 80)
    address = host_address(host)
    name = "" if address is not None else _name(host)
    place = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    values = {
        "variable": api_key_env,
        "setting": setting,
        "host": place,
        "hosts": ", ".join(entries),
        "scheme": scheme,
    }
    if not rules:
        if api_key_env:
            raise EgressRefused(
                _(
                    "The key %(variable)s is bound to no host, so it is sent nowhere: the operator names the "
                    "hosts it may be sent to in %(setting)s (e.g. %(setting)s=api.openai.com), in the "
                    "environment of the web and worker processes."
                )
                % values
            )
        raise EgressRefused(
            _(
                "Endpoints without a key call only the hosts the operator names in %(setting)s, and it "
                "names none."
            )
            % values
        )
    if not any(rule.allows(name=name, address=address, port=port, scheme=scheme) for rule in rules):
        if api_key_env:
            message = _(
                "The key %(variable)s may be sent only to %(hosts)s (%(setting)s; a host without a port "
                "means https on port 443), not to %(scheme)s://%(host)s: point the base URL at one of "
                "those hosts, or ask the operator to add this one to %(setting)s."
            )
        else:
            message = _(
                "Endpoints without a key call only %(hosts)s (%(setting)s), not %(host)s: point the base "
                "URL at one of those hosts, or ask the operator to add this one to %(setting)s."
            )
        raise EgressRefused(message % values)
    if name and resolve:
        with contextlib.suppress(NameNotResolved):  # its connection fails on its own
            egress_address(name=name, port=port, api_key_env=api_key_env)


class NameNotResolved(Exception):
    """A name with no address here: the call fails as a connection error would."""


def egress_address(*, name: str, port: int, api_key_env: str) -> str:
    """The address a call to the allowed ``name`` connects to: the name is looked up once and
    every address it gives must be public or inside ``LLM_PRIVATE_NETWORKS`` (else
    :class:`EgressRefused`); the first IPv4 address is taken where there is one, as not every
    host has an IPv6 route. :class:`NameNotResolved` when the name gives none."""
    setting, _entries = egress_allowed_hosts(api_key_env)
    try:
        found = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise NameNotResolved(name) from exc
    addresses = [address for info in found if (address := host_address(str(info[4][0]))) is not None]
    if not addresses:
        raise NameNotResolved(name)
    networks = _private_networks()
    for address in addresses:
        if address.is_global or any(address in network for network in networks):
            continue
        raise EgressRefused(
            _(
                "%(name)s resolves to %(address)s, a loopback or private address the operator has not "
                "allowed: they write the address itself in %(setting)s, or its network in %(private)s."
            )
            % {"name": name, "address": address, "setting": setting, "private": PRIVATE_SETTING}
        )
    chosen = next((a for a in addresses if isinstance(a, ipaddress.IPv4Address)), addresses[0])
    return str(chosen)


def egress_problem(url: str, *, api_key_env: str, resolve: bool = True) -> str:
    """Why a call to ``url`` with the key of ``api_key_env`` is refused; "" when it is allowed."""
    try:
        egress_check(url, api_key_env=api_key_env, resolve=resolve)
    except EgressRefused as exc:
        return str(exc)
    return ""


def endpoint_egress_problem(endpoint: Any) -> str:
    """Why the endpoint's calls are refused, from the settings alone (no lookup: for pages);
    "" when they are allowed or the endpoint has no base URL yet."""
    if not endpoint.base_url:
        return ""
    return egress_problem(endpoint.base_url, api_key_env=endpoint.api_key_env, resolve=False)
