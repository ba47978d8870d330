"""Bots: uploads (one code path for the form, the API and ``cucumbers upload``), the static
source check, validation in the sandbox, and the owner's controls."""
