"""Who may do what on `serve`, for a server others can reach.

- Loading and unloading adapters is an admin act: with an admin token configured it needs
  `Authorization: Bearer <admin token>`; inference keys do not open it.
- Inference (`/v1/chat/completions`, `/v1/models`) needs one of the inference keys when any are configured (several
  may be valid at once, for rotation without downtime), as vLLM's `--api-key` does.
- A runtime load may only name an adapter inside the adapter directory: a path with `..` is refused, and so is one
  that resolves (through symlinks) outside it.
- A server bound beyond loopback without an admin token and an adapter directory does not start."""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BadJob


class AccessError(Exception):
    def __init__(self, status: int, message: str, code: str):
        super().__init__(message)
        self.status, self.code = status, code


def _bearer(header: str | None) -> str | None:
    if not header or not header.startswith("Bearer "):
        return None
    return header[len("Bearer ") :].strip() or None


def _matches(given: str | None, valid: tuple[str, ...]) -> bool:
    # Compared in constant time, every key every time, so timing tells nothing about which one nearly matched.
    return given is not None and any([hmac.compare_digest(given.encode(), v.encode()) for v in valid])


@dataclass(frozen=True)
class Access:
    admin_token: str | None = None
    api_keys: tuple[str, ...] = field(default_factory=tuple)
    adapter_dir: Path | None = None

    def check_admin(self, authorization: str | None) -> None:
        if self.admin_token is not None and not _matches(_bearer(authorization), (self.admin_token,)):
            raise AccessError(
                401,
                "loading and unloading adapters needs the server's admin token (Authorization: Bearer ...)",
                "invalid_api_key",
            )

    def check_inference(self, authorization: str | None) -> None:
        if self.api_keys and not _matches(_bearer(authorization), self.api_keys):
            raise AccessError(401, "Incorrect API key provided (Authorization: Bearer ...)", "invalid_api_key")

    def adapter_path(self, path: str) -> str:
        """The path a runtime load may use, or an AccessError saying why not."""
        if self.adapter_dir is None:
            return path
        if ".." in Path(path).parts:
            raise AccessError(400, f"lora_path: '..' is not allowed ({path})", "invalid_path")
        root = self.adapter_dir.resolve()
        resolved = (Path(path) if Path(path).is_absolute() else Path.cwd() / path).resolve()
        if resolved != root and root not in resolved.parents:
            raise AccessError(
                403, f"lora_path: {path} is outside the adapter directory {self.adapter_dir}", "path_not_allowed"
            )
        return str(resolved)


def check_exposure(host: str, access: Access) -> None:
    """Refuse to listen beyond loopback without an admin token and an adapter directory."""
    if host == "localhost" or _loopback(host):
        return
    missing = [
        what
        for what, ok in (
            ("an admin token (--admin-token-env)", access.admin_token),
            ("--adapter-dir", access.adapter_dir),
        )
        if not ok
    ]
    if missing:
        raise BadJob(
            f"--host {host}: a server others can reach needs {' and '.join(missing)}; bind 127.0.0.1 for local use"
        )


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
