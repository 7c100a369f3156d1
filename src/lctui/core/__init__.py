"""Plain dataclasses and protocols shared by every layer."""
