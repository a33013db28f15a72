"""A :class:`PathFacts` over a plain set of paths, for the classifier's table tests."""

from __future__ import annotations

import posixpath

from aria_desktop.domain.sandbox import Sandbox

HOME = "/home/ann"


class DictFacts:
    """Paths that exist (files) and folders, and links (path -> target), all absolute."""

    def __init__(
        self,
        files: tuple[str, ...] = (),
        folders: tuple[str, ...] = (),
        links: dict[str, str] | None = None,
    ) -> None:
        self.sandbox = Sandbox(home=HOME, roots=(HOME,))
        self.files = set(files)
        self.folders = set(folders) | {HOME, "/", "/tmp"}
        self.links = links or {}

    def resolve(self, path: str) -> str:
        for link, target in self.links.items():
            if path == link or path.startswith(link + "/"):
                return target + path[len(link) :]
        return posixpath.normpath(path)

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.folders

    def is_dir(self, path: str) -> bool:
        return path in self.folders
