//! Repetition: GameHistory against the Python history scan (labels) and cshogi `is_draw`.
