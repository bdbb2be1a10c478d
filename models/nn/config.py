"""The JSON form of a model's hyper-parameters, shared by every family's config dataclass."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

C = TypeVar("C", bound="JsonConfig")


class JsonConfig:
    """``to_dict`` / ``from_dict`` for a config dataclass stored in a checkpoint's config.json.

    ``from_dict`` refuses unknown keys (a typo must not pass silently) unless the class sets
    ``IGNORE_UNKNOWN`` (then they are dropped).
    """

    IGNORE_UNKNOWN = False

    def to_dict(self) -> dict[str, Any]:
        if not dataclasses.is_dataclass(self) or isinstance(self, type):
            raise TypeError(f"{type(self).__name__} is a JsonConfig but not a dataclass")
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls: type[C], data: dict[str, Any]) -> C:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is a JsonConfig but not a dataclass")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown and not cls.IGNORE_UNKNOWN:
            raise ValueError(f"unknown {cls.__name__} keys: {sorted(unknown)}")
        return cls(**{k: v for k, v in data.items() if k in known})
