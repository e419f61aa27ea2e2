"""The core's signal receivers, connected when the app is ready: the cached roles are
forgotten whenever group memberships, users or groups change."""

from core.accounts.roles import roles_signals_connect

roles_signals_connect()
