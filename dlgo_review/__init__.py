"""``dlgo-review``: game review on the command line (``python -m dlgo_review``); docs/review.md."""
