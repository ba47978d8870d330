"""Move reviews an owner asks for on its bots' games, computed by arena workers."""
