"""The Docker sandbox: untrusted bots, each in its own locked-down container."""
