"""Rule sets an analysis request may name, and which of them dlgo plays as they are.

dlgo plays area scoring (Chinese rules): its networks were trained on area counts and its
searches score finished games by area, with situational superko and no suicide. KataGo's rule
names (docs/GTP_Extensions.md, ``kata-set-rules``) are all accepted, because clients send them
unasked (KaTrain's default is ``japanese``):

- area scoring without a group tax or a button (chinese, chinese-ogs, chinese-kgs,
  tromp-taylor, aga, bga, new-zealand) is analysed as it is;
- territory scoring (japanese, korean, ancient-territory), stone scoring (stone-scoring,
  ancient-area: a tax on every group) and the button (aga-button) are analysed under area
  scoring, with a warning that says so: the win rates and leads are those of an area count,
  which in most games differs from a territory count by a point at most.

What the rules change in a record's replay: which moves are legal there (suicide where the
rules allow it; a repetition of an earlier position where only simple ko is forbidden), and the
points White gets per handicap stone (``whiteHandicapBonus``: 0, N or N-1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["RuleSet", "RulesError", "parse_rules", "RULE_NAMES", "HANDICAP_BONUS"]

HANDICAP_BONUS = ("0", "N", "N-1")


class RulesError(ValueError):
    """A rules value that names no rule set."""


@dataclass(frozen=True)
class RuleSet:
    """``name``: KataGo's name; ``area``: scored by area; ``tax``: NONE, SEKI or ALL (a group
    tax); ``button``; ``suicide``: multi-stone suicide legal; ``simple_ko``: only an immediate
    retake is forbidden (no superko); ``handicap_bonus``: White's points per handicap stone."""

    name: str
    area: bool = True
    tax: str = "NONE"
    button: bool = False
    suicide: bool = False
    simple_ko: bool = False
    handicap_bonus: str = "N"

    @property
    def honoured(self) -> bool:
        """Whether dlgo analyses these rules as they are (area scoring, no tax, no button)."""
        return self.area and self.tax == "NONE" and not self.button

    @property
    def default_komi(self) -> float:
        """KataGo's komi when a query gives none: 7.5 for area scoring, 6.5 for territory."""
        return 7.5 if self.area else 6.5

    def warning(self) -> str | None:
        """Why the analysis does not follow these rules exactly (None: it does)."""
        if self.honoured:
            return None
        what = "territory scoring" if not self.area else "a group tax" if self.tax != "NONE" else "a button"
        return (
            f"rules '{self.name}' use {what}; dlgo scores by area (chinese rules) and analyses the "
            "position under area scoring"
        )


_TABLE = (
    RuleSet("chinese", simple_ko=True),
    RuleSet("chinese-ogs"),
    RuleSet("chinese-kgs"),
    RuleSet("tromp-taylor", suicide=True, handicap_bonus="0"),
    RuleSet("aga", handicap_bonus="N-1"),
    RuleSet("bga", handicap_bonus="N-1"),
    RuleSet("new-zealand", suicide=True, handicap_bonus="0"),
    RuleSet("aga-button", button=True, handicap_bonus="N-1"),
    RuleSet("japanese", area=False, tax="SEKI", simple_ko=True, handicap_bonus="0"),
    RuleSet("korean", area=False, tax="SEKI", simple_ko=True, handicap_bonus="0"),
    RuleSet("ancient-territory", area=False, tax="ALL", simple_ko=True, handicap_bonus="0"),
    RuleSet("stone-scoring", tax="ALL", simple_ko=True, handicap_bonus="0"),
)
_ALIASES = {"nz": "new-zealand", "ancient-area": "stone-scoring"}
RULE_NAMES = tuple(r.name for r in _TABLE) + tuple(_ALIASES)
# KataGo compares names without case, "-" or "_" ("TROMP_TAYLOR", "agabutton" are accepted)
_BY_KEY = {rules.name.replace("-", ""): rules for rules in _TABLE}
_BY_KEY.update({alias.replace("-", ""): _BY_KEY[target.replace("-", "")] for alias, target in _ALIASES.items()})

_OBJECT_KEYS = {"ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus", "friendlyPassOk"}


def parse_rules(value: Any) -> RuleSet:
    """A rules name (KataGo's shorthands) or a JSON object of KataGo's rule fields; RulesError
    for anything else."""
    if isinstance(value, str):
        rules = _BY_KEY.get(value.strip().lower().replace("_", "").replace("-", ""))
        if rules is None:
            raise RulesError(f"Could not parse rules: {value}")
        return rules
    if isinstance(value, Mapping):
        return _from_object(value)
    raise RulesError(
        'Must specify rules string, such as "chinese" or "tromp-taylor", or a JSON object with detailed '
        "rules parameters."
    )


def _from_object(value: Mapping[str, Any]) -> RuleSet:
    """KataGo's detailed rules: ko SIMPLE/POSITIONAL/SITUATIONAL, scoring AREA/TERRITORY, tax
    NONE/SEKI/ALL, suicide, hasButton, whiteHandicapBonus, friendlyPassOk (unused here)."""
    import json

    def bad() -> RulesError:
        return RulesError(f"Could not parse rules: {json.dumps(value, separators=(',', ':'))}")

    if not value or set(value) - _OBJECT_KEYS:
        raise bad()
    rules = RuleSet("custom")
    choices = {
        "ko": ("SIMPLE", "POSITIONAL", "SITUATIONAL"),
        "scoring": ("AREA", "TERRITORY"),
        "tax": ("NONE", "SEKI", "ALL"),
    }
    for key, allowed in choices.items():
        if key in value and (not isinstance(value[key], str) or value[key].upper() not in allowed):
            raise bad()
    for key in ("suicide", "hasButton", "friendlyPassOk"):
        if key in value and not isinstance(value[key], bool):
            raise bad()
    bonus = value.get("whiteHandicapBonus", "0")
    if str(bonus).upper() not in HANDICAP_BONUS:
        raise bad()
    return replace(
        rules,
        area=str(value.get("scoring", "AREA")).upper() == "AREA",
        tax=str(value.get("tax", "NONE")).upper(),
        button=bool(value.get("hasButton", False)),
        suicide=bool(value.get("suicide", False)),
        simple_ko=str(value.get("ko", "POSITIONAL")).upper() == "SIMPLE",
        handicap_bonus=str(bonus).upper(),
    )
