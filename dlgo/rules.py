"""Rule sets a game or an analysis request may name, and which of them dlgo counts as they are.

KataGo's rule names (docs/GTP_Extensions.md, ``kata-set-rules``) are all accepted, because
clients send them unasked (KaTrain's default is ``japanese``, KGS sends ``kgs-rules japanese``):

- area scoring without a group tax or a button (chinese, chinese-ogs, chinese-kgs,
  tromp-taylor, aga, bga, new-zealand) is counted as it is (``dlgo.scoring``);
- territory scoring with the seki tax (japanese, korean) is counted as it is: territory and
  prisoners, no points in seki (``dlgo.territory``);
- a tax on every group (stone-scoring, ancient-area, ancient-territory) and the button
  (aga-button) are counted without the tax or the button, with a warning that says so.

The searches read the board by area whatever the rules: dlgo's networks were trained on area
counts. What follows the rules is the count (``final_score``, the end-of-game decisions) and the
score lead an analysis reports (``dlgo.territory.territory_offset``).

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
        """Whether dlgo counts these rules as they are: area scoring without a tax, or territory
        scoring whose tax is on seki alone (japanese, korean); never a button."""
        counted = (self.area and self.tax == "NONE") or (not self.area and self.tax == "SEKI")
        return counted and not self.button

    @property
    def default_komi(self) -> float:
        """KataGo's komi when a query gives none: 7.5 for area scoring, 6.5 for territory."""
        return 7.5 if self.area else 6.5

    def as_katago(self) -> dict[str, Any]:
        """KataGo's JSON object of these rules (``kata-get-rules``)."""
        return {
            "friendlyPassOk": False,
            "hasButton": self.button,
            "ko": "SIMPLE" if self.simple_ko else "POSITIONAL",
            "scoring": "AREA" if self.area else "TERRITORY",
            "suicide": self.suicide,
            "tax": self.tax,
            "whiteHandicapBonus": self.handicap_bonus,
        }

    def warning(self) -> str | None:
        """Why the analysis does not follow these rules exactly (None: it does)."""
        if self.honoured:
            return None
        what = "a button" if self.button else "a tax on every group"
        scoring = "area" if self.area else "territory"
        return f"rules '{self.name}' use {what}; dlgo counts {scoring} without it"


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
