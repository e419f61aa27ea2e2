"""The HTTP transport every provider call goes through: the egress check's last step.

Each request the client sends (a redirect's too, were one followed) is checked against the
operator's hosts (``core.llm.egress``) before anything leaves. A host given by name is looked
up here, once; the connection goes to the address that was checked, while the ``Host`` header
and TLS (server name and certificate) keep the name. Were the name looked up again when
connecting, a server answering with a public address first and a private one next (DNS
rebinding) would take the key, or the *Test connection* page, inside the operator's network.

Calls go straight to the provider or gateway: an outbound proxy from the environment
(``HTTPS_PROXY``) is not used, as the address a proxy connects to could not be checked.
"""

from __future__ import annotations

from typing import Any

import httpx2

from core.llm.egress import NameNotResolved, egress_address, egress_check_place, host_address


class EgressTransport(httpx2.HTTPTransport):
    """``httpx2.HTTPTransport`` that sends a request only where ``api_key_env``'s hosts allow,
    to the address it checked."""

    def __init__(self, api_key_env: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.api_key_env = api_key_env

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        egress_check_place(
            scheme=url.scheme,
            host=url.host,
            port=url.port,
            api_key_env=self.api_key_env,
            resolve=False,
            shown=str(url),
        )
        if host_address(url.host) is None:
            try:
                address = egress_address(
                    name=url.host,
                    port=url.port or (443 if url.scheme == "https" else 80),
                    api_key_env=self.api_key_env,
                )
            except NameNotResolved:
                raise httpx2.ConnectError(f"{url.host} has no address here", request=request) from None
            extensions = dict(request.extensions)
            if url.scheme == "https":
                extensions["sni_hostname"] = url.host  # the certificate is checked against the name
            request = httpx2.Request(
                request.method,
                url.copy_with(host=address),
                headers=request.headers,  # ``Host`` already names the name
                stream=request.stream,
                extensions=extensions,
            )
        return super().handle_request(request)
